package com.example.boot;

import com.example.auto.AutoConfigured;
import com.example.calls.RoutedCalls;
import io.github.llmrouter.LlmClient;
import io.github.llmrouter.emulator.EmulatedReplica;
import java.util.List;
import org.springframework.boot.CommandLineRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * A Spring Boot application with an {@link LlmClient} bean over two emulated replicas on
 * loopback; its runner makes the routed calls, and the application exits non-zero if any fails.
 * Then {@link AutoConfigured}, which defines no client, gets one from llm-router's
 * auto-configuration. Built against Spring Boot 3.5 and 4.0 by the consumer projects of those
 * names.
 */
@SpringBootApplication
public class Application {

  public static void main(String[] args) {
    int code = SpringApplication.exit(SpringApplication.run(Application.class, args));
    if (code == 0) code = AutoConfigured.run(); // no LlmClient bean: made from properties
    System.exit(code);
  }

  @Bean
  EmulatedReplica replicaA() {
    return EmulatedReplica.builder().id("a").build().start();
  }

  @Bean
  EmulatedReplica replicaB() {
    return EmulatedReplica.builder().id("b").build().start();
  }

  @Bean
  LlmClient llmClient(List<EmulatedReplica> replicas) {
    return LlmClient.builder()
        .replicas(replicas.stream().map(EmulatedReplica::baseUrl).toArray(String[]::new))
        .build();
  }

  @Bean
  CommandLineRunner routedCalls(LlmClient client) {
    return args -> System.out.println("Spring Boot " + SpringBootVersion.getVersion() + " on Java "
        + System.getProperty("java.version") + ": blocking, async and streaming calls routed ("
        + RoutedCalls.make(client) + ")");
  }
}
