package com.example.auto;

import io.github.llmrouter.LlmClient;
import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.emulator.EmulatedReplica;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * An application that defines no {@link LlmClient}: llm-router's auto-configuration makes one
 * from {@code llm-router.*} properties, on whichever Spring Boot the consumer project builds
 * against, and it routes a call to an emulated replica.
 */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class AutoConfigured {
  /** Runs the application once; returns the exit code (0: the auto-configured client answered). */
  public static int run() {
    try (EmulatedReplica replica = EmulatedReplica.builder().id("auto").build().start();
        ConfigurableApplicationContext context = new SpringApplicationBuilder(AutoConfigured.class)
            .web(WebApplicationType.NONE)
            .properties("llm-router.replicas=" + replica.baseUrl(),
                "llm-router.policy=round-robin", "llm-router.call-timeout=30s")
            .run()) {
      LlmClient client = context.getBean(LlmClient.class);
      String answer = client.chat(ChatRequest.builder("m")
          .message(ChatMessage.user("hello")).maxTokens(4).build()).text();
      System.out.println("Spring Boot " + SpringBootVersion.getVersion()
          + ": the auto-configured LlmClient answered (" + answer + ")");
      return answer.isEmpty() ? 1 : 0;
    }
  }
}
