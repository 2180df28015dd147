package io.github.llmrouter.internal.transport;

import static java.util.Objects.requireNonNull;

import java.util.Set;

/**
 * What a replica listed at {@code /v1/models}: the models it serves, and those of them it lists
 * as not loaded now (an engine that loads models on demand, as llama.cpp's router mode does,
 * gives each a status; a model without one counts as loaded). Immutable.
 *
 * @param models the model names it serves
 * @param unloaded the names among {@code models} it would have to load first
 */
public record ModelList(Set<String> models, Set<String> unloaded) {
  /** A list of {@code models}, all loaded. */
  public static ModelList of(Set<String> models) {
    return new ModelList(models, Set.of());
  }

  /** Copies both sets. */
  public ModelList {
    models = Set.copyOf(requireNonNull(models, "models"));
    unloaded = Set.copyOf(requireNonNull(unloaded, "unloaded"));
  }
}
