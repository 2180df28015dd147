package io.github.llmrouter.emulator;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * The LoRA adapters of an {@link EmulatedReplica} that serves them as vLLM does with {@code
 * --enable-lora --max-loras N} and runtime updates on: the adapters registered (at start or by
 * {@code POST /v1/load_lora_adapter}), and the at most {@code maxLoras} of them held in memory
 * to run, least recently used first. A request of a registered adapter not held loads it, in
 * place of the least recently used one with no request running (past {@code maxLoras} only when
 * every one held has requests running, where vLLM would make the request wait). Thread-safe:
 * every method holds the object's lock, briefly.
 */
final class EmulatedLoras {
  final int maxLoras;
  /** Registered adapters, by name, with the path they were loaded from. */
  private final Map<String, String> registered = new LinkedHashMap<>();
  /** Adapters held to run, least recently used first, with their requests running. */
  private final LinkedHashMap<String, int[]> held = new LinkedHashMap<>(16, 0.75f, true);
  final LongAdder loads = new LongAdder();

  EmulatedLoras(int maxLoras) {
    this.maxLoras = maxLoras;
  }

  /** Registers {@code name}; false if it is already registered. */
  synchronized boolean register(String name, String path) {
    return registered.putIfAbsent(name, path) == null;
  }

  /** Unregisters {@code name} and frees its slot; false if it was not registered. */
  synchronized boolean unregister(String name) {
    if (registered.remove(name) == null) return false;
    held.remove(name);
    return true;
  }

  /** {@return the registered adapters, in registration order} */
  synchronized List<String> names() {
    return new ArrayList<>(registered.keySet());
  }

  synchronized boolean isRegistered(String name) {
    return registered.containsKey(name);
  }

  /**
   * A request of {@code name} starts: the adapter is held (loaded first if it was not) and counts
   * one more request running. Returns false, changing nothing, if it is not registered.
   */
  synchronized boolean start(String name) {
    if (!registered.containsKey(name)) return false;
    int[] running = held.get(name);
    if (running == null) {
      if (held.size() >= maxLoras) {
        for (Iterator<int[]> it = held.values().iterator(); it.hasNext(); ) {
          if (it.next()[0] == 0) {
            it.remove();
            break;
          }
        }
      }
      running = new int[1];
      held.put(name, running);
      loads.increment();
    }
    running[0]++;
    return true;
  }

  /** A request of {@code name} started by {@link #start} ended. */
  synchronized void end(String name) {
    int[] running = held.get(name);
    if (running != null && running[0] > 0) running[0]--;
  }

  /** {@return the adapters with requests running, least recently used first} */
  synchronized List<String> running() {
    List<String> running = new ArrayList<>();
    for (Map.Entry<String, int[]> e : held.entrySet()) {
      if (e.getValue()[0] > 0) running.add(e.getKey());
    }
    return running;
  }
}
