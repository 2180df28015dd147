package io.github.llmrouter.sim;

import io.github.llmrouter.load.LoadView;
import io.github.llmrouter.routing.PromptBlocks;
import io.github.llmrouter.routing.Ranking;
import io.github.llmrouter.routing.ReplicaPicker;
import io.github.llmrouter.routing.RoutingPolicy;
import io.github.llmrouter.routing.RoutedAttempt;
import io.github.llmrouter.routing.RoutingRequest;
import java.util.SplittableRandom;

/**
 * A model of NVIDIA Dynamo's KV router with its defaults ({@code lib/llm/src/kv_router}: the
 * worker selector's cost, {@code ActiveSequences}' load accounting, and the approximate indexer
 * {@code approx.rs} used without KV events), run as one instance per client.
 *
 * <p>For each replica, with the prompt's whole blocks (block size {@code B} = the trace's tokens
 * per block): {@code cost = }{@value #OVERLAP_SCORE_WEIGHT}{@code × (prefill tokens of this
 * client's requests on it still without a first token + prompt tokens − overlap × B) / B + (blocks
 * of this client's active requests on it + the prompt's blocks not among them)}. The lowest cost
 * wins (router temperature 0); ties go to the replica with the fewest indexed blocks, then at
 * random. {@code overlap} is how many of the prompt's leading blocks the approximate indexer
 * thinks the replica holds: each decision records the request's blocks for the chosen replica,
 * each kept {@value #TTL_SECONDS} s after its last use ({@code router_ttl}), the whole index capped
 * at {@value #MAX_TREE_SIZE} entries (pruned to {@value #PRUNE_TARGET_RATIO} of that, soonest to
 * expire first). A request's prefill tokens leave the accounting at its first token and its
 * blocks at its completion, from the simulated client's response feedback.
 *
 * <p>What cannot be modelled client-side: by default Dynamo's router consumes KV events from the
 * workers and knows their caches exactly; a client library receives none, so this model uses the
 * approximate indexer ({@code --no-kv-events}). Several routers share active-sequence state only
 * with {@code router_replica_sync}, off by default, so one instance per client sees only its own
 * requests, as here. Thread-safe (one lock per picker); a model for comparison.
 */
final class DynamoKvRouter {
  /** {@code overlap_score_weight}: {@value}. */
  static final double OVERLAP_SCORE_WEIGHT = 1.0;
  /** {@code router_ttl}, seconds: {@value}. */
  static final long TTL_SECONDS = 120;
  /** {@code router_max_tree_size}: {@value} (2^20). */
  static final int MAX_TREE_SIZE = 1 << 20;
  /** {@code router_prune_target_ratio}: {@value}. */
  static final double PRUNE_TARGET_RATIO = 0.8;

  private DynamoKvRouter() {}

  /** The model with Dynamo's defaults; {@code seed} breaks ties between equal costs. */
  static RoutingPolicy policy(long seed) {
    return new PeerModels.Policy("Dynamo", n -> new Picker(n, seed));
  }

  static final class Picker implements ReplicaPicker {
    private final int replicas;
    private final SplittableRandom random;
    /** Per replica: indexed block hashes stamped with their expiry (ns), soonest to expire first. */
    private final LongLru[] indexed;
    /** Per replica: blocks of this client's active requests, with how many requests use each. */
    private final LongMap<Integer>[] activeBlocks;
    /** Per replica: prompt tokens of this client's requests still waiting for a first token. */
    private final long[] activePrefillTokens;
    private int indexedTotal;

    @SuppressWarnings({"unchecked", "rawtypes"})
    Picker(int replicas, long seed) {
      this.replicas = replicas;
      this.random = new SplittableRandom(seed);
      this.indexed = new LongLru[replicas];
      this.activeBlocks = new LongMap[replicas];
      this.activePrefillTokens = new long[replicas];
      for (int i = 0; i < replicas; i++) {
        indexed[i] = new LongLru();
        activeBlocks[i] = new LongMap<>();
      }
    }

    @Override
    public Ranking rank(RoutingRequest request, LoadView load) {
      PromptBlocks blocks = request.blocks();
      return new PeerModels.DecidedRanking() {
        private int chosen = -1;
        private long prefillTokens;
        private boolean prefilled;

        @Override
        int[] decide() {
          synchronized (Picker.this) {
            long now = PeerModels.nanos(load);
            expire(now);
            int[] overlap = overlaps(blocks);
            double[] cost = new double[replicas];
            for (int i = 0; i < replicas; i++) cost[i] = cost(blocks, overlap[i], i);
            int[] order = PeerModels.ascending(cost);
            chosen = breakTies(order, cost);
            prefillTokens = newTokens(blocks, overlap[chosen]);
            admit(blocks, chosen, prefillTokens, now);
            return PeerModels.withFirst(chosen, order);
          }
        }

        @Override
        String firstReason() {
          return "lowest cost: overlap-weighted uncached prefill blocks plus active blocks";
        }

        @Override
        public RoutedAttempt sent(int index, long nanos, boolean streamed) {
          if (index != chosen) return RoutedAttempt.IGNORED;
          return new RoutedAttempt() {
            @Override
            public void firstToken(long at) {
              prefilled(index);
            }

            @Override
            public void completed(long promptTokens, long cachedTokens, long at) {
              finished(index);
            }

            @Override
            public void failed(long at) {
              finished(index);
            }
          };
        }

        private void prefilled(int index) {
          synchronized (Picker.this) {
            if (index != chosen || prefilled) return;
            prefilled = true;
            activePrefillTokens[index] -= prefillTokens;
          }
        }

        private void finished(int index) {
          prefilled(index);
          synchronized (Picker.this) {
            if (index != chosen) return;
            chosen = -1;
            LongMap<Integer> active = activeBlocks[index];
            for (int b = 0; b < blocks.fullBlocks(); b++) {
              long h = blocks.hash(b);
              Integer uses = active.get(h);
              if (uses == null) continue;
              if (uses == 1) active.remove(h); else active.put(h, uses - 1);
            }
          }
        }
      };
    }

    /** The selector's logit for replica {@code i}. */
    double cost(PromptBlocks blocks, int overlap, int i) {
      double blockTokens = blocks.blockTokens();
      double prefillBlocks = (activePrefillTokens[i] + newTokens(blocks, overlap)) / blockTokens;
      LongMap<Integer> active = activeBlocks[i];
      int fresh = blocks.fullBlocks() - PeerModels.presentPrefix(blocks, active::containsKey);
      return OVERLAP_SCORE_WEIGHT * prefillBlocks + active.size() + fresh;
    }

    /** Prompt tokens left to compute with {@code overlap} blocks cached. */
    private static long newTokens(PromptBlocks blocks, int overlap) {
      return Math.max(0, (long) blocks.promptTokens() - (long) overlap * blocks.blockTokens());
    }

    /**
     * The indexer's overlap scores: walking the prompt's blocks while any replica holds one, each
     * holder counts it. A replica's indexed blocks are prefix-closed (a block is stored and
     * refreshed with all the blocks before it, and expires or is pruned no earlier than they do),
     * so its score is the length of its longest indexed prefix.
     */
    int[] overlaps(PromptBlocks blocks) {
      int[] overlap = new int[replicas];
      for (int i = 0; i < replicas; i++) {
        overlap[i] = PeerModels.presentPrefix(blocks, indexed[i]::contains);
      }
      return overlap;
    }

    /** The first of the cheapest, by fewest indexed blocks, then at random. */
    private int breakTies(int[] order, double[] cost) {
      int ties = 1;
      while (ties < replicas && cost[order[ties]] == cost[order[0]]) ties++;
      if (ties == 1) return order[0];
      int fewest = Integer.MAX_VALUE;
      int count = 0;
      for (int k = 0; k < ties; k++) {
        int size = indexed[order[k]].size();
        if (size < fewest) {
          fewest = size;
          count = 1;
        } else if (size == fewest) {
          count++;
        }
      }
      int skip = count == 1 ? 0 : random.nextInt(count);
      for (int k = 0; k < ties; k++) {
        if (indexed[order[k]].size() == fewest && skip-- == 0) return order[k];
      }
      throw new AssertionError("unreachable");
    }

    /** Adds the request to the replica's active sequences and its blocks to the index. */
    private void admit(PromptBlocks blocks, int replica, long prefillTokens, long now) {
      activePrefillTokens[replica] += prefillTokens;
      long expiry = now + TTL_SECONDS * 1_000_000_000L;
      LongLru index = indexed[replica];
      LongMap<Integer> active = activeBlocks[replica];
      // Deepest block first: among blocks expiring together, later ones are dropped first, as
      // Dynamo prunes higher sequence positions first, so what stays is a prefix.
      for (int b = blocks.fullBlocks() - 1; b >= 0; b--) {
        long h = blocks.hash(b);
        Integer uses = active.get(h);
        active.put(h, uses == null ? 1 : uses + 1);
        if (index.touch(h, expiry)) indexedTotal++;
      }
      if (indexedTotal > MAX_TREE_SIZE) prune();
    }

    /** Drops every indexed block whose time to live is over. */
    private void expire(long now) {
      for (LongLru index : indexed) {
        while (!index.isEmpty() && index.eldestStamp() <= now) {
          index.removeEldest();
          indexedTotal--;
        }
      }
    }

    /** Drops the soonest-to-expire entries until the index is at its prune target. */
    private void prune() {
      int target = (int) (MAX_TREE_SIZE * PRUNE_TARGET_RATIO);
      while (indexedTotal > target) {
        LongLru soonest = null;
        for (LongLru index : indexed) {
          if (!index.isEmpty() && (soonest == null || index.eldestStamp() < soonest.eldestStamp())) {
            soonest = index;
          }
        }
        soonest.removeEldest();
        indexedTotal--;
      }
    }

    /** Blocks of this client's active requests on replica {@code i} (for tests). */
    int activeBlocks(int i) {
      return activeBlocks[i].size();
    }

    /** Prefill tokens of this client's requests on replica {@code i} without a first token. */
    long activePrefillTokens(int i) {
      return activePrefillTokens[i];
    }
  }
}
