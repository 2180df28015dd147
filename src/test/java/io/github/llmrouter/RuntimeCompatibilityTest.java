package io.github.llmrouter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import okhttp3.OkHttp;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

class RuntimeCompatibilityTest {

  /** A class path described by hand: OkHttp 5 alone and a working codec unless told otherwise. */
  private static final class FakeClassPath implements RuntimeCompatibility.ClassPath {
    @Nullable String okHttpVersion = "5.5.1";
    List<String> okHttpLocations = List.of("jar:file:/app/lib/okhttp-jvm-5.5.1.jar!/");
    @Nullable LinkageError jsonFailure;

    @Override
    public @Nullable String okHttpVersion() {
      return okHttpVersion;
    }

    @Override
    public List<String> okHttpLocations() {
      return okHttpLocations;
    }

    @Override
    public void exerciseJson() {
      if (jsonFailure != null) throw jsonFailure;
    }

    @Override
    public String jacksonAnnotationsVersion() {
      return "2.19.2";
    }

    @Override
    public String jacksonAnnotationsLocation() {
      return "file:/app/lib/jackson-annotations-2.19.2.jar";
    }
  }

  @Test
  void acceptsTheClassPathOfThisBuild() {
    assertThatCode(RuntimeCompatibility::checkOnce).doesNotThrowAnyException();
  }

  @Test
  void acceptsOkHttp5AloneWithAWorkingCodec() {
    assertThatCode(() -> RuntimeCompatibility.check(new FakeClassPath()))
        .doesNotThrowAnyException();
  }

  @Test
  void refusesOkHttp4AndNamesTheBomToImport() {
    FakeClassPath cp = new FakeClassPath();
    cp.okHttpVersion = "4.12.0";
    cp.okHttpLocations = List.of("jar:file:/app/lib/okhttp-4.12.0.jar!/okhttp3/OkHttpClient.class");
    assertThatThrownBy(() -> RuntimeCompatibility.check(cp))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("needs OkHttp 5")
        .hasMessageContaining("OkHttp 4.12.0")
        .hasMessageContaining("okhttp-4.12.0.jar")
        .hasMessageContaining("com.squareup.okhttp3:okhttp-bom:" + OkHttp.VERSION)
        .hasMessageContaining("exclude com.squareup.okhttp3:okhttp");
  }

  @Test
  void refusesTwoCopiesOfOkHttpEvenWhenVersion5LoadsFirst() {
    FakeClassPath cp = new FakeClassPath();
    cp.okHttpLocations = List.of("jar:file:/app/lib/okhttp-jvm-5.5.1.jar!/",
        "jar:file:/app/lib/okhttp-4.12.0.jar!/");
    assertThatThrownBy(() -> RuntimeCompatibility.check(cp))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("Two copies of OkHttp")
        .hasMessageContaining("okhttp-4.12.0.jar")
        .hasMessageContaining("okhttp-bom");
  }

  @Test
  void refusesAnUnreadableOkHttpVersion() {
    FakeClassPath cp = new FakeClassPath();
    cp.okHttpVersion = null;
    assertThatThrownBy(() -> RuntimeCompatibility.check(cp))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("unknown version");
  }

  @Test
  void turnsSpringBoot3sOldJacksonAnnotationsIntoTheLineToAdd() {
    FakeClassPath cp = new FakeClassPath();
    cp.jsonFailure = new NoClassDefFoundError("com/fasterxml/jackson/annotation/JsonSerializeAs");
    assertThatThrownBy(() -> RuntimeCompatibility.check(cp))
        .isInstanceOf(IllegalStateException.class)
        .hasCause(cp.jsonFailure)
        .hasMessageContaining("JsonSerializeAs")
        .hasMessageContaining("jackson-annotations 2.19.2 is loaded from"
            + " file:/app/lib/jackson-annotations-2.19.2.jar")
        .hasMessageContaining("add the dependency com.fasterxml.jackson.core:jackson-annotations:"
            + RuntimeCompatibility.JACKSON_ANNOTATIONS_BUILT_WITH);
  }

  @Test
  void namesTheJacksonAnnotationsVersionThisBuildRunsOn() {
    // The constant the message quotes must be the version the pom resolves (jackson-bom's).
    assertThat(JsonProperty.class.getPackage().getImplementationVersion())
        .isEqualTo(RuntimeCompatibility.JACKSON_ANNOTATIONS_BUILT_WITH);
  }
}
