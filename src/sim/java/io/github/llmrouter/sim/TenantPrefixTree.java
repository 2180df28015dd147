package io.github.llmrouter.sim;

import io.github.llmrouter.routing.PromptBlocks;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * SGLang's approximate multi-tenant radix tree ({@code sgl-model-gateway/src/policies/tree.rs}),
 * over prompt blocks instead of characters: one node per chained block hash, each node marking the
 * tenants (replicas) a prompt through it was sent to, with each tenant's last access time. A
 * tenant's size is the tokens of the nodes it marks; eviction removes a too-large tenant's least
 * recently used leaves. Not thread-safe.
 *
 * <p>SGLang compresses runs of characters into one node and evicts whole nodes; here a node is
 * one block, so eviction is finer. Matching is the same: how far down the tree a prompt's blocks
 * go, whichever tenants mark them.
 */
final class TenantPrefixTree {
  /** One block of some prompt. */
  static final class Node {
    final long hash;
    final Node parent;
    final int tokens;
    int children;
    int[] tenants = new int[2];
    long[] lastAccess = new long[2];
    int count;

    Node(long hash, Node parent, int tokens) {
      this.hash = hash;
      this.parent = parent;
      this.tokens = tokens;
    }

    int find(int tenant) {
      for (int k = 0; k < count; k++) if (tenants[k] == tenant) return k;
      return -1;
    }

    /** Marks {@code tenant} at {@code now}; returns whether it was new here. */
    boolean touch(int tenant, long now) {
      int k = find(tenant);
      if (k >= 0) {
        lastAccess[k] = now;
        return false;
      }
      if (count == tenants.length) {
        tenants = java.util.Arrays.copyOf(tenants, count * 2);
        lastAccess = java.util.Arrays.copyOf(lastAccess, count * 2);
      }
      tenants[count] = tenant;
      lastAccess[count++] = now;
      return true;
    }

    void remove(int tenant) {
      int k = find(tenant);
      if (k < 0) return;
      count--;
      tenants[k] = tenants[count];
      lastAccess[k] = lastAccess[count];
    }
  }

  private final LongMap<Node> nodes = new LongMap<>();
  private final long[] tenantTokens;

  TenantPrefixTree(int tenants) {
    this.tenantTokens = new long[tenants];
  }

  /** The tokens of the nodes {@code tenant} marks. */
  long tenantTokens(int tenant) {
    return tenantTokens[tenant];
  }

  /** How many leading blocks of {@code blocks} are in the tree (marked by any tenant). */
  int matchDepth(PromptBlocks blocks) {
    int d = 0;
    while (d < blocks.size() && nodes.containsKey(blocks.hash(d))) d++;
    return d;
  }

  /** The node of block {@code depth - 1} of {@code blocks} (call with a matched depth ≥ 1). */
  Node nodeAt(PromptBlocks blocks, int depth) {
    return nodes.get(blocks.hash(depth - 1));
  }

  /** Marks {@code tenant} on {@code node} and its ancestors at {@code now} (SGLang's match touch). */
  void touchPath(Node node, int tenant, long now) {
    for (Node n = node; n != null; n = n.parent) {
      if (n.touch(tenant, now)) tenantTokens[tenant] += n.tokens;
    }
  }

  /** Inserts every block of {@code blocks} for {@code tenant} at {@code now}. */
  void insert(PromptBlocks blocks, int tenant, long now) {
    Node parent = null;
    for (int i = 0; i < blocks.size(); i++) {
      long h = blocks.hash(i);
      Node n = nodes.get(h);
      if (n == null) {
        n = new Node(h, parent, blocks.tokensThrough(i + 1) - blocks.tokensThrough(i));
        nodes.put(h, n);
        if (parent != null) parent.children++;
      }
      if (n.touch(tenant, now)) tenantTokens[tenant] += n.tokens;
      parent = n;
    }
  }

  /**
   * SGLang's {@code evict_tenant_by_size}: for every tenant above {@code maxTokens}, removes its
   * least recently accessed leaves (nodes it marks where no child does), and then the parents that
   * become leaves, until it is within the limit. Nodes no tenant marks and without children go.
   */
  void evictBySize(long maxTokens) {
    boolean over = false;
    for (long t : tenantTokens) over |= t > maxTokens;
    if (!over) return;
    // (node, tenant) pairs with a child marked by the tenant: the tenant's non-leaves.
    Map<Node, List<Integer>> childTenants = new HashMap<>();
    nodes.forEachValue(n -> {
      if (n.parent == null) return;
      List<Integer> list = childTenants.computeIfAbsent(n.parent, k -> new ArrayList<>());
      for (int k = 0; k < n.count; k++) list.add(n.tenants[k]);
    });
    PriorityQueue<Leaf> leaves = new PriorityQueue<>();
    nodes.forEachValue(n -> {
      List<Integer> below = childTenants.get(n);
      for (int k = 0; k < n.count; k++) {
        int t = n.tenants[k];
        if (tenantTokens[t] > maxTokens && (below == null || !below.contains(t))) {
          leaves.add(new Leaf(n, t, n.lastAccess[k]));
        }
      }
    });
    while (!leaves.isEmpty()) {
      Leaf leaf = leaves.poll();
      Node n = leaf.node;
      int t = leaf.tenant;
      if (tenantTokens[t] <= maxTokens || n.find(t) < 0) continue;
      n.remove(t);
      tenantTokens[t] -= n.tokens;
      if (n.count == 0 && n.children == 0) {
        nodes.remove(n.hash);
        if (n.parent != null) n.parent.children--;
      }
      Node p = n.parent;
      if (p != null) {
        List<Integer> below = childTenants.get(p);
        if (below != null) below.remove(Integer.valueOf(t));
        int k = p.find(t);
        if (k >= 0 && (below == null || !below.contains(t))) {
          leaves.add(new Leaf(p, t, p.lastAccess[k]));
        }
      }
    }
  }

  /** A tenant's leaf, least recently accessed first. */
  private record Leaf(Node node, int tenant, long access) implements Comparable<Leaf> {
    @Override
    public int compareTo(Leaf o) {
      int c = Long.compare(access, o.access);
      if (c != 0) return c;
      c = Long.compare(node.hash, o.node.hash);
      return c != 0 ? c : Integer.compare(tenant, o.tenant);
    }
  }
}
