package io.github.llmrouter.sim;

import io.github.llmrouter.load.LoadView;
import io.github.llmrouter.routing.PromptBlocks;
import io.github.llmrouter.routing.Ranking;
import io.github.llmrouter.routing.ReplicaPicker;
import io.github.llmrouter.routing.RoutingPolicy;
import io.github.llmrouter.routing.RoutingRequest;
import java.util.SplittableRandom;

/**
 * A model of SGLang's cache-aware router ({@code sgl-model-gateway/src/policies/cache_aware.rs}
 * with {@code tree.rs}, defaults of its command line), run as one instance per client.
 *
 * <p>Each decision reads the router's own in-flight count per replica. If the fleet is imbalanced
 * ({@code max − min > }{@value #BALANCE_ABS_THRESHOLD} and {@code max > }{@value
 * #BALANCE_REL_THRESHOLD}{@code × min}) the request goes to the least loaded replica. Otherwise the
 * prompt is matched against an approximate tree of the prompts sent so far ({@link
 * TenantPrefixTree}); if the matched share of the prompt is above {@value #CACHE_THRESHOLD} the
 * request goes to a replica holding the deepest matched node (SGLang takes whichever its map yields
 * first: an arbitrary but fixed order per process, here a seeded permutation per client), else to
 * the least loaded replica (ties: lowest index). Either way the prompt is then inserted into the
 * tree for the chosen replica. Every {@value #EVICTION_INTERVAL_SECONDS} s a replica whose part of
 * the tree exceeds {@value #MAX_TREE_TOKENS} tokens (SGLang's 2^26 characters at 4 characters per
 * token) loses its least recently used leaves.
 *
 * <p>Differences: the tree is over the request's prompt blocks, not characters, so a match counts
 * whole blocks; failover (later ranks) goes by least in-flight. Thread-safe (one lock per picker);
 * a model for comparison, not for production.
 */
final class SglangCacheAware {
  /** SGLang's {@code cache_threshold}: {@value}. */
  static final double CACHE_THRESHOLD = 0.3;
  /** SGLang's {@code balance_abs_threshold}: {@value}. */
  static final int BALANCE_ABS_THRESHOLD = 64;
  /** SGLang's {@code balance_rel_threshold}: {@value}. */
  static final double BALANCE_REL_THRESHOLD = 1.5;
  /** SGLang's {@code eviction_interval_secs}: {@value}. */
  static final long EVICTION_INTERVAL_SECONDS = 120;
  /** SGLang's {@code max_tree_size} of 67,108,864 characters, in tokens at 4 per token: {@value}. */
  static final long MAX_TREE_TOKENS = 67_108_864 / 4;

  private SglangCacheAware() {}

  /** The model with SGLang's defaults; {@code seed} orders the tenants of a node. */
  static RoutingPolicy policy(long seed) {
    return policy(seed, MAX_TREE_TOKENS);
  }

  /** The model with another {@code max_tree_size}, in tokens. */
  static RoutingPolicy policy(long seed, long maxTreeTokens) {
    return new PeerModels.Policy("SGLang", n -> new Picker(n, seed, maxTreeTokens));
  }

  static final class Picker implements ReplicaPicker {
    final TenantPrefixTree tree;
    /** The order in which tenants of one node are tried: SGLang's map iteration order. */
    private final int[] tenantOrder;
    private final long maxTreeTokens;
    private long nextEviction = Long.MIN_VALUE;
    /** Why the last decision went where it did (read under the lock that made it). */
    private String reason = "";

    Picker(int replicas, long seed, long maxTreeTokens) {
      this.tree = new TenantPrefixTree(replicas);
      this.maxTreeTokens = maxTreeTokens;
      this.tenantOrder = new int[replicas];
      for (int i = 0; i < replicas; i++) tenantOrder[i] = i;
      SplittableRandom random = new SplittableRandom(seed);
      for (int i = replicas - 1; i > 0; i--) {
        int j = random.nextInt(i + 1);
        int t = tenantOrder[i];
        tenantOrder[i] = tenantOrder[j];
        tenantOrder[j] = t;
      }
    }

    @Override
    public Ranking rank(RoutingRequest request, LoadView load) {
      return new PeerModels.DecidedRanking() {
        private String why = "";

        @Override
        int[] decide() {
          synchronized (Picker.this) {
            int n = tenantOrder.length;
            double[] inFlight = new double[n];
            for (int i = 0; i < n; i++) inFlight[i] = load.inFlight(i);
            int[] byLoad = PeerModels.ascending(inFlight);
            int pick = choose(request, load, byLoad[0]);
            why = reason;
            return PeerModels.withFirst(pick, byLoad);
          }
        }

        @Override
        String firstReason() {
          return why;
        }
      };
    }

    /** SGLang's {@code select_worker}; {@code leastLoaded} is the first least loaded replica. */
    private int choose(RoutingRequest request, LoadView load, int leastLoaded) {
      long now = PeerModels.nanos(load);
      evictIfDue(now);
      PromptBlocks blocks = request.blocks();
      int max = Integer.MIN_VALUE;
      int min = Integer.MAX_VALUE;
      for (int i = 0; i < tenantOrder.length; i++) {
        int f = load.inFlight(i);
        max = Math.max(max, f);
        min = Math.min(min, f);
      }
      boolean imbalanced = max - min > BALANCE_ABS_THRESHOLD
          && (float) max > (float) min * (float) BALANCE_REL_THRESHOLD;
      int pick;
      if (imbalanced) {
        pick = leastLoaded;
        reason = "imbalanced: least loaded";
      } else {
        int depth = tree.matchDepth(blocks);
        int tenant = -1;
        if (depth > 0) {
          TenantPrefixTree.Node node = tree.nodeAt(blocks, depth);
          tenant = firstTenant(node);
          if (tenant >= 0) tree.touchPath(node, tenant, now);
        }
        double matchRate = blocks.promptTokens() == 0 ? 0
            : (double) blocks.tokensThrough(depth) / blocks.promptTokens();
        if (tenant >= 0 && (float) matchRate > (float) CACHE_THRESHOLD) {
          pick = tenant;
          reason = "longest prefix match above the cache threshold";
        } else {
          pick = leastLoaded;
          reason = "match rate at or below the cache threshold: least loaded";
        }
      }
      tree.insert(blocks, pick, now);
      return pick;
    }

    private int firstTenant(TenantPrefixTree.Node node) {
      for (int t : tenantOrder) if (node.find(t) >= 0) return t;
      return -1;
    }

    private void evictIfDue(long now) {
      long interval = EVICTION_INTERVAL_SECONDS * 1_000_000_000L;
      if (nextEviction == Long.MIN_VALUE) nextEviction = now + interval;
      while (now >= nextEviction) {
        tree.evictBySize(maxTreeTokens);
        nextEviction += interval;
      }
    }
  }
}
