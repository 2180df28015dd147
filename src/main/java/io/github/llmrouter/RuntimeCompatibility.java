package io.github.llmrouter;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.api.ChatResponse;
import io.github.llmrouter.internal.transport.Json;
import java.io.IOException;
import java.net.URL;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import okhttp3.OkHttp;
import org.jspecify.annotations.Nullable;

/**
 * Checks that the libraries on the class path are ones the client runs on, so that a build that
 * mixes versions fails at {@link LlmClientBuilder#build()} with a message naming the line to add,
 * instead of with a {@link NoClassDefFoundError} on some later call.
 *
 * <p>Two mix-ups are common enough to name. OkHttp 4 (which openai-java 4 and Spring AI 1 bring)
 * beside OkHttp 5: both jars hold the classes {@code okhttp3.*}, so which one runs depends on
 * class-path order. And Spring Boot 3's dependency management, which pins jackson-annotations 2.19
 * under the client's Jackson 3, which needs the annotations it was built with.
 *
 * <p>The check runs once per class loader (the first {@code build()} pays a few milliseconds);
 * later builds reuse its verdict.
 */
final class RuntimeCompatibility {
  /** The OkHttp version this library was compiled against (a constant, inlined by javac). */
  static final String OKHTTP_BUILT_WITH = OkHttp.VERSION;
  /** The jackson-annotations version Jackson 3 is released with (see the pom). */
  static final String JACKSON_ANNOTATIONS_BUILT_WITH = "2.23";

  private static volatile boolean verified;

  private RuntimeCompatibility() {}

  /** What the check reads of a class path; a seam so that tests can describe broken ones. */
  interface ClassPath {
    /** {@code okhttp3.OkHttp.VERSION} of the OkHttp classes that load, null if unreadable. */
    @Nullable String okHttpVersion();

    /** Where {@code okhttp3/OkHttpClient.class} can be found, one entry per copy. */
    List<String> okHttpLocations();

    /** Serializes a request and parses a response with the client's own mapper. */
    void exerciseJson();

    /** The jackson-annotations version on the class path, null if its jar does not say. */
    @Nullable String jacksonAnnotationsVersion();

    /** Where jackson-annotations was loaded from, null if unknown. */
    @Nullable String jacksonAnnotationsLocation();
  }

  /** Checks this class loader's class path once; later calls return at once. */
  static void checkOnce() {
    if (verified) return;
    check(new Actual());
    verified = true;
  }

  /**
   * Checks {@code classPath}.
   *
   * @throws IllegalStateException naming the dependency to add or align, if the class path mixes
   *     versions the client cannot run on
   */
  static void check(ClassPath classPath) {
    String okhttp = classPath.okHttpVersion();
    if (okhttp == null || !okhttp.startsWith("5.")) {
      throw new IllegalStateException("llm-router needs OkHttp 5, but the okhttp3 classes that"
          + " load are OkHttp " + (okhttp == null ? "of an unknown version" : okhttp)
          + " (found at " + classPath.okHttpLocations() + "). " + okHttpFix());
    }
    List<String> copies = classPath.okHttpLocations();
    if (copies.size() > 1) {
      throw new IllegalStateException("Two copies of OkHttp are on the class path " + copies
          + ": which one runs depends on class-path order. " + okHttpFix());
    }
    try {
      classPath.exerciseJson();
    } catch (LinkageError e) {
      String found = classPath.jacksonAnnotationsVersion();
      throw new IllegalStateException("llm-router's JSON codec (Jackson 3) cannot run on this"
          + " class path: " + e + ". jackson-annotations " + (found == null ? "(version unknown)"
          : found) + " is loaded from " + classPath.jacksonAnnotationsLocation() + ", and Jackson"
          + " 3 needs the version it is released with, " + JACKSON_ANNOTATIONS_BUILT_WITH
          + ". Spring Boot 3 manages an older one:"
          + " add the dependency com.fasterxml.jackson.core:jackson-annotations:"
          + JACKSON_ANNOTATIONS_BUILT_WITH + " to your build (see the README, Compatibility).", e);
    }
  }

  private static String okHttpFix() {
    return "Put every library on OkHttp 5: import com.squareup.okhttp3:okhttp-bom:"
        + OKHTTP_BUILT_WITH + " in your dependencyManagement (Gradle: platform(...)), or exclude"
        + " com.squareup.okhttp3:okhttp from the dependency that brings OkHttp 4 (openai-java 4,"
        + " Spring AI 1); see the README, Compatibility.";
  }

  /** The class path this class was loaded from. */
  private static final class Actual implements ClassPath {
    @Override
    public @Nullable String okHttpVersion() {
      try {
        // Read reflectively: OkHttp.VERSION in source would be the compile-time constant.
        Object v = OkHttp.class.getField("VERSION").get(null);
        return v instanceof String s ? s : null;
      } catch (ReflectiveOperationException | LinkageError e) {
        return null;
      }
    }

    @Override
    public List<String> okHttpLocations() {
      ClassLoader loader = OkHttp.class.getClassLoader();
      if (loader == null) return List.of();
      try {
        List<String> out = new ArrayList<>();
        for (URL url : Collections.list(loader.getResources("okhttp3/OkHttpClient.class"))) {
          out.add(url.toString());
        }
        return out;
      } catch (IOException e) {
        return List.of();
      }
    }

    @Override
    public void exerciseJson() {
      Json.MAPPER.writeValueAsBytes(ChatRequest.builder("m")
          .message(ChatMessage.user("u")).extra("k", 1).build());
      Json.MAPPER.readValue("{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
          + "\"content\":\"a\"}}],\"usage\":{\"prompt_tokens\":1}}", ChatResponse.class);
    }

    @Override
    public @Nullable String jacksonAnnotationsVersion() {
      Package p = JsonProperty.class.getPackage();
      return p == null ? null : p.getImplementationVersion();
    }

    @Override
    public @Nullable String jacksonAnnotationsLocation() {
      CodeSource source = JsonProperty.class.getProtectionDomain().getCodeSource();
      return source == null || source.getLocation() == null ? null
          : source.getLocation().toString();
    }
  }
}
