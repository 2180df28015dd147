package io.github.llmrouter.internal.transport;

import static java.util.Objects.requireNonNull;

import java.util.Map;
import java.util.Set;

/**
 * What a replica listed at {@code /v1/models}: the models it serves, and those of them it lists
 * as not loaded now (an engine that loads models on demand, as llama.cpp's router mode does,
 * gives each a status; a model without one counts as loaded), and those of them that are LoRA
 * adapters of another (vLLM lists each adapter with its base model as {@code parent}). Immutable.
 *
 * @param models the model names it serves
 * @param unloaded the names among {@code models} it would have to load first
 * @param parents the adapters among {@code models}, each with the name of its base model
 */
public record ModelList(Set<String> models, Set<String> unloaded, Map<String, String> parents) {
  /** A list of {@code models}, all loaded, none an adapter. */
  public static ModelList of(Set<String> models) {
    return new ModelList(models, Set.of(), Map.of());
  }

  /** A list of {@code models}, none an adapter. */
  public ModelList(Set<String> models, Set<String> unloaded) {
    this(models, unloaded, Map.of());
  }

  /** Copies the sets and the map. */
  public ModelList {
    models = Set.copyOf(requireNonNull(models, "models"));
    unloaded = Set.copyOf(requireNonNull(unloaded, "unloaded"));
    parents = Map.copyOf(requireNonNull(parents, "parents"));
  }
}
