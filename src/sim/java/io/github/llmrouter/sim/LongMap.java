package io.github.llmrouter.sim;

import io.github.llmrouter.internal.util.Hashing;
import java.util.function.Consumer;

/**
 * A map from {@code long} keys (block hashes) to non-null values: open addressing with linear
 * probing and backward-shift deletion. The simulator looks up block hashes millions of times per
 * run; boxing each key for a {@code HashMap} cost more than the models themselves. Not thread-safe.
 */
final class LongMap<V> {
  private long[] keys;
  private Object[] values;
  private int mask;
  private int size;

  LongMap() {
    this(16);
  }

  LongMap(int expected) {
    int n = Integer.highestOneBit(Math.max(16, expected * 2 - 1)) << 1;
    keys = new long[n];
    values = new Object[n];
    mask = n - 1;
  }

  int size() {
    return size;
  }

  private int slot(long key) {
    return (int) Hashing.mix64(key) & mask;
  }

  /** The value of {@code key}, or null. */
  @SuppressWarnings("unchecked")
  V get(long key) {
    for (int i = slot(key); ; i = (i + 1) & mask) {
      Object v = values[i];
      if (v == null) return null;
      if (keys[i] == key) return (V) v;
    }
  }

  boolean containsKey(long key) {
    return get(key) != null;
  }

  /** Maps {@code key} to {@code value} (not null), replacing any value it had. */
  void put(long key, V value) {
    if ((size + 1) * 2 > values.length) grow();
    for (int i = slot(key); ; i = (i + 1) & mask) {
      if (values[i] == null) {
        keys[i] = key;
        values[i] = value;
        size++;
        return;
      }
      if (keys[i] == key) {
        values[i] = value;
        return;
      }
    }
  }

  /** Removes {@code key}; returns its value, or null if it had none. */
  @SuppressWarnings("unchecked")
  V remove(long key) {
    int i = slot(key);
    while (true) {
      if (values[i] == null) return null;
      if (keys[i] == key) break;
      i = (i + 1) & mask;
    }
    V removed = (V) values[i];
    size--;
    // Shift later entries of the probe run back into the hole, so lookups need no tombstones.
    int hole = i;
    for (int j = (hole + 1) & mask; values[j] != null; j = (j + 1) & mask) {
      int home = slot(keys[j]);
      boolean movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
      if (movable) {
        keys[hole] = keys[j];
        values[hole] = values[j];
        hole = j;
      }
    }
    values[hole] = null;
    return removed;
  }

  /** Calls {@code action} with every value, in no particular order. */
  @SuppressWarnings("unchecked")
  void forEachValue(Consumer<? super V> action) {
    for (Object v : values) if (v != null) action.accept((V) v);
  }

  private void grow() {
    long[] oldKeys = keys;
    Object[] oldValues = values;
    keys = new long[oldKeys.length * 2];
    values = new Object[oldValues.length * 2];
    mask = keys.length - 1;
    size = 0;
    for (int i = 0; i < oldKeys.length; i++) {
      @SuppressWarnings("unchecked")
      V v = (V) oldValues[i];
      if (v != null) put(oldKeys[i], v);
    }
  }
}
