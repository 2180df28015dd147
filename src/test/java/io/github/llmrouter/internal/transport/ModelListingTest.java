package io.github.llmrouter.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What a replica's {@code /v1/models} answer says it serves, and which errors say "unknown model". */
class ModelListingTest {
  @Test
  void vllmListsItsBaseModelAndEveryLoadedAdapter() {
    String body = "{\"object\":\"list\",\"data\":["
        + "{\"id\":\"meta-llama/Llama-3.1-8B\",\"object\":\"model\",\"root\":\"meta-llama/Llama-3.1-8B\","
        + "\"parent\":null,\"max_model_len\":8192},"
        + "{\"id\":\"sql-lora\",\"object\":\"model\",\"root\":\"/adapters/sql\","
        + "\"parent\":\"meta-llama/Llama-3.1-8B\"}]}";
    ModelList list = ModelDiscovery.parse(body);
    assertThat(list).isNotNull();
    assertThat(list.models()).containsExactlyInAnyOrder("meta-llama/Llama-3.1-8B", "sql-lora");
    assertThat(list.unloaded()).isEmpty();
    assertThat(list.parents()).containsExactly(
        java.util.Map.entry("sql-lora", "meta-llama/Llama-3.1-8B"));
  }

  @Test
  void aParentThatIsNoNameOrTheModelItselfMakesNoAdapter() {
    ModelList list = ModelDiscovery.parse("{\"data\":[{\"id\":\"a\",\"parent\":\"a\"},"
        + "{\"id\":\"b\",\"parent\":\"\"},{\"id\":\"c\",\"parent\":7},"
        + "{\"id\":\"\",\"parent\":\"base\"},{\"id\":\"d\",\"parent\":\"base\"}]}");
    assertThat(list).isNotNull();
    assertThat(list.parents()).containsExactly(java.util.Map.entry("d", "base"));
  }

  @Test
  void llamaCppListsItsModelWithItsAliases() {
    String body = "{\"models\":[{\"name\":\"/m/tiny.gguf\"}],\"object\":\"list\",\"data\":["
        + "{\"id\":\"/m/tiny.gguf\",\"aliases\":[\"tiny\",\"\",7,\"tiny\"],\"object\":\"model\"}]}";
    assertThat(ModelDiscovery.parse(body)).isEqualTo(
        ModelList.of(java.util.Set.of("/m/tiny.gguf", "tiny")));
  }

  @Test
  void aRouterModeLlamaCppServerListsWhichOfItsModelsAreNotLoaded() {
    String body = "{\"data\":[{\"id\":\"alpha\",\"aliases\":[],\"status\":{\"value\":"
        + "\"unloaded\",\"args\":[]}},{\"id\":\"beta\",\"status\":{\"value\":\"loaded\"}},"
        + "{\"id\":\"gamma\",\"aliases\":[\"g\"],\"status\":{\"value\":\"loading\"}}],"
        + "\"object\":\"list\"}";
    ModelList list = ModelDiscovery.parse(body);
    assertThat(list).isNotNull();
    assertThat(list.models()).containsExactlyInAnyOrder("alpha", "beta", "gamma", "g");
    assertThat(list.unloaded()).containsExactlyInAnyOrder("alpha", "gamma", "g");
  }

  @Test
  void anEmptyListServesNothingNamedAndOtherBodiesAreNoList() {
    assertThat(ModelDiscovery.parse("{\"object\":\"list\",\"data\":[]}"))
        .isEqualTo(ModelList.of(java.util.Set.of()));
    assertThat(ModelDiscovery.parse("{\"data\":[{\"id\":null},{\"name\":\"x\"},3]}"))
        .isEqualTo(ModelList.of(java.util.Set.of()));
    assertThat(ModelDiscovery.parse("{\"data\":{\"id\":\"x\"}}")).isNull();
    assertThat(ModelDiscovery.parse("[]")).isNull();
    assertThat(ModelDiscovery.parse("not json")).isNull();
    assertThat(ModelDiscovery.parse("")).isNull();
  }

  @Test
  void aListOfThousandsKeepsTheFirstMaxModels() {
    StringBuilder body = new StringBuilder("{\"data\":[");
    for (int i = 0; i < ModelDiscovery.MAX_MODELS + 10; i++) {
      if (i > 0) body.append(',');
      body.append("{\"id\":\"adapter-").append(i).append("\"}");
    }
    ModelList list = ModelDiscovery.parse(body.append("]}").toString());
    assertThat(list).isNotNull();
    assertThat(list.models()).hasSize(ModelDiscovery.MAX_MODELS).contains("adapter-0")
        .doesNotContain("adapter-4096");
  }
}
