package io.github.llmrouter.sim;

import io.github.llmrouter.load.LoadView;
import io.github.llmrouter.routing.PromptBlocks;
import io.github.llmrouter.routing.Ranking;
import io.github.llmrouter.routing.ReplicaPicker;
import io.github.llmrouter.routing.RoutingPolicy;
import io.github.llmrouter.routing.RoutingRequest;
import java.util.SplittableRandom;

/**
 * A model of the llm-d / Gateway API inference extension endpoint picker with its default
 * scheduling profile (the InferencePool chart's {@code default-plugins.yaml}: {@code
 * prefix-cache-scorer} weight {@value #PREFIX_WEIGHT}, {@code queue-scorer} {@value #QUEUE_WEIGHT},
 * {@code kv-cache-utilization-scorer} {@value #KV_WEIGHT}, {@code max-score-picker}), following
 * {@code pkg/epp/scheduling/framework/plugins/prefixcachescorer/plugin.go} and {@code indexer.go},
 * {@code queuescorer/queue.go}, {@code kvcacheutilizationscorer/kvcache_utilization.go} and {@code
 * maxscorepicker/max_score_picker.go}; run as one instance per client.
 *
 * <p>Scores, each in [0, 1], weighted and summed; the highest total wins, ties at random:
 * <ul>
 *   <li>prefix: of the prompt's whole blocks within the first {@value #MAX_PREFIX_TOKENS} tokens
 *       (256 blocks of 64 characters, about 16 tokens each), the share this replica holds
 *       according to an approximate index: walking the blocks in order while any replica holds
 *       one, each holder counts it. The index records, after each decision, the request's blocks
 *       for the chosen replica, in a per-replica LRU of {@value #LRU_CAPACITY_TOKENS} tokens
 *       (31,250 blocks of 16 tokens);
 *   <li>queue: {@code (max − waiting) / (max − min)} over the scraped waiting queues, 1 if all are
 *       equal;
 *   <li>KV cache: {@code 1 − scraped KV usage}.
 * </ul>
 *
 * <p>Differences: the picker in front of a fleet scrapes every 50 ms; here each client scrapes at
 * the simulator's interval. Blocks are the trace's, not 64-character ones. With auto-tuning the
 * LRU is sized from the replica's reported GPU blocks (480,000 tokens in the default profile, 4%
 * less than the default used here). Thread-safe (one lock per picker); a model for comparison.
 */
final class LlmdScorer {
  /** Weight of the prefix-cache scorer: {@value}. */
  static final int PREFIX_WEIGHT = 3;
  /** Weight of the queue scorer: {@value}. */
  static final int QUEUE_WEIGHT = 2;
  /** Weight of the KV-cache utilisation scorer: {@value}. */
  static final int KV_WEIGHT = 2;
  /** {@code maxPrefixBlocksToMatch} 256 × 64 characters, at 4 characters per token: {@value}. */
  static final int MAX_PREFIX_TOKENS = 256 * 16;
  /** {@code lruCapacityPerServer} 31,250 blocks of 16 tokens: {@value}. */
  static final int LRU_CAPACITY_TOKENS = 31_250 * 16;

  private LlmdScorer() {}

  /** The model with the default profile; {@code seed} breaks ties between equal scores. */
  static RoutingPolicy policy(long seed) {
    return new PeerModels.Policy("llm-d", n -> new Picker(n, seed));
  }

  static final class Picker implements ReplicaPicker {
    private final int replicas;
    private final SplittableRandom random;
    /** Block hash to the replicas holding it, as a bit set. */
    private final LongMap<long[]> holders = new LongMap<>();
    /** Per replica, its blocks least recently added first (created with the first block size seen). */
    private final LongLru[] lru;

    Picker(int replicas, long seed) {
      this.replicas = replicas;
      this.random = new SplittableRandom(seed);
      this.lru = new LongLru[replicas];
    }

    @Override
    public Ranking rank(RoutingRequest request, LoadView load) {
      return new PeerModels.DecidedRanking() {
        @Override
        int[] decide() {
          synchronized (Picker.this) {
            double[] total = scores(request, load);
            double[] negated = new double[replicas];
            for (int i = 0; i < replicas; i++) negated[i] = -total[i];
            int[] order = PeerModels.ascending(negated);
            int ties = 1;
            while (ties < replicas && total[order[ties]] == total[order[0]]) ties++;
            int pick = order[ties == 1 ? 0 : random.nextInt(ties)];
            record(request.blocks(), pick);
            return PeerModels.withFirst(pick, order);
          }
        }

        @Override
        String firstReason() {
          return "highest weighted score: prefix 3, queue 2, KV usage 2";
        }
      };
    }

    /** Each replica's weighted total score for {@code request}. */
    double[] scores(RoutingRequest request, LoadView load) {
      double[] prefix = prefixScores(request.blocks());
      int minQ = Integer.MAX_VALUE;
      int maxQ = Integer.MIN_VALUE;
      int[] waiting = new int[replicas];
      for (int i = 0; i < replicas; i++) {
        waiting[i] = PeerModels.scrapedWaiting(load, i);
        minQ = Math.min(minQ, waiting[i]);
        maxQ = Math.max(maxQ, waiting[i]);
      }
      double[] total = new double[replicas];
      for (int i = 0; i < replicas; i++) {
        double queue = maxQ == minQ ? 1.0 : (double) (maxQ - waiting[i]) / (maxQ - minQ);
        double kv = 1 - PeerModels.scrapedKvUsage(load, i);
        total[i] = PREFIX_WEIGHT * prefix[i] + QUEUE_WEIGHT * queue + KV_WEIGHT * kv;
      }
      return total;
    }

    /** The prefix scorer: matched blocks / hashed blocks, per replica. */
    private double[] prefixScores(PromptBlocks blocks) {
      double[] score = new double[replicas];
      int hashed = hashedBlocks(blocks);
      if (hashed == 0) return score;
      int[] matched = new int[replicas];
      for (int b = 0; b < hashed; b++) {
        long[] who = holders.get(blocks.hash(b));
        if (who == null) break;
        for (int i = 0; i < replicas; i++) if ((who[i >>> 6] & (1L << i)) != 0) matched[i]++;
      }
      for (int i = 0; i < replicas; i++) score[i] = (double) matched[i] / hashed;
      return score;
    }

    /** Whole blocks within the first {@value #MAX_PREFIX_TOKENS} tokens (a partial block is not hashed). */
    private static int hashedBlocks(PromptBlocks blocks) {
      if (blocks == null) return 0;
      return Math.min(blocks.fullBlocks(), MAX_PREFIX_TOKENS / blocks.blockTokens());
    }

    /** The indexer's {@code Add}: the request's hashed blocks become most recent on {@code replica}. */
    private void record(PromptBlocks blocks, int replica) {
      int hashed = hashedBlocks(blocks);
      if (hashed == 0) return;
      LongLru mine = lru[replica];
      if (mine == null) {
        mine = new LongLru(Math.max(1, LRU_CAPACITY_TOKENS / blocks.blockTokens()),
            hash -> forget(hash, replica));
        lru[replica] = mine;
      }
      for (int b = 0; b < hashed; b++) {
        long h = blocks.hash(b);
        mine.touch(h, 0);
        long[] who = holders.get(h);
        if (who == null) {
          who = new long[(replicas + 63) >>> 6];
          holders.put(h, who);
        }
        who[replica >>> 6] |= 1L << replica;
      }
    }

    private void forget(long hash, int replica) {
      long[] who = holders.get(hash);
      if (who == null) return;
      who[replica >>> 6] &= ~(1L << replica);
      for (long w : who) if (w != 0) return;
      holders.remove(hash);
    }
  }
}
