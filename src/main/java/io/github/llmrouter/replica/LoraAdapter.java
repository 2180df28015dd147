package io.github.llmrouter.replica;

import static java.util.Objects.requireNonNull;

/**
 * A LoRA adapter the client may load on a replica of its base model when a call asks for it
 * ({@code LlmClientBuilder.loadAdaptersOnDemand}): its name (what calls send as the model), the
 * base model it runs on, and where the replica reads it from (vLLM's {@code lora_path}: a local
 * directory, or a name a LoRA resolver understands). An immutable value.
 *
 * <pre>{@code
 * LoraAdapter sql = LoraAdapter.of("sql-lora", "meta-llama/Llama-3.1-8B", "/adapters/sql");
 * }</pre>
 *
 * @since 0.3.0
 */
public final class LoraAdapter {
  private final String name;
  private final String baseModel;
  private final String path;

  private LoraAdapter(String name, String baseModel, String path) {
    this.name = name;
    this.baseModel = baseModel;
    this.path = path;
  }

  /**
   * An adapter.
   *
   * @param name the adapter's name, as calls send it in {@code model}; not blank
   * @param baseModel the model it runs on, as replicas declare or list it; not blank, not {@code
   *     name}
   * @param path where a replica loads it from ({@code lora_path}); not blank
   * @return the adapter
   * @throws IllegalArgumentException if a value is blank, has a line break, or the adapter is its
   *     own base model
   */
  public static LoraAdapter of(String name, String baseModel, String path) {
    check("name", name);
    check("baseModel", baseModel);
    check("path", path);
    if (name.equals(baseModel)) {
      throw new IllegalArgumentException("LoraAdapter '" + name + "' cannot be its own base model");
    }
    return new LoraAdapter(name, baseModel, path);
  }

  private static void check(String what, String value) {
    if (requireNonNull(value, what).isBlank()) {
      throw new IllegalArgumentException("LoraAdapter " + what + " must not be blank");
    }
    if (value.indexOf('\n') >= 0 || value.indexOf('\r') >= 0) {
      throw new IllegalArgumentException("LoraAdapter " + what + " must not hold a line break");
    }
  }

  /** {@return the adapter's name, as calls send it in {@code model}} */
  public String name() {
    return name;
  }

  /** {@return the base model it runs on} */
  public String baseModel() {
    return baseModel;
  }

  /** {@return where a replica loads it from ({@code lora_path})} */
  public String path() {
    return path;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LoraAdapter a && a.name.equals(name) && a.baseModel.equals(baseModel)
        && a.path.equals(path);
  }

  @Override
  public int hashCode() {
    return (name.hashCode() * 31 + baseModel.hashCode()) * 31 + path.hashCode();
  }

  @Override
  public String toString() {
    return "LoraAdapter{" + name + " on " + baseModel + " from " + path + '}';
  }
}
