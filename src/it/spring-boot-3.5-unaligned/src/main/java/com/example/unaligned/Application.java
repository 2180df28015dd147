package com.example.unaligned;

import io.github.llmrouter.LlmClient;

/**
 * Builds a client on Spring Boot 3.5's jackson-annotations 2.19 and expects {@code build()} to
 * refuse with a message that names the missing dependency line.
 */
public final class Application {
  private Application() {}

  public static void main(String[] args) {
    try (LlmClient client = LlmClient.builder().replicas("http://127.0.0.1:9").build()) {
      throw new AssertionError("build() accepted jackson-annotations 2.19: " + client);
    } catch (IllegalStateException expected) {
      String message = String.valueOf(expected.getMessage());
      if (!message.contains("com.fasterxml.jackson.core:jackson-annotations:")) {
        throw new AssertionError("the message does not name the fix: " + message, expected);
      }
      System.out.println("build() refused, as it must: " + message);
    }
  }
}
