package com.example.boot;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;
import org.springframework.boot.CommandLineRunner;
import org.springframework.stereotype.Component;

/**
 * Boot 3's own Jackson 2 still works with the jackson-annotations the README asks Boot 3
 * applications to add: Boot's {@link ObjectMapper} writes and reads an annotated value.
 */
@Component
class Jackson2OnNewAnnotations implements CommandLineRunner {
  private final ObjectMapper mapper;

  Jackson2OnNewAnnotations(ObjectMapper mapper) {
    this.mapper = mapper;
  }

  record Reply(@JsonProperty("replica_id") String replicaId, int tokens) {}

  @Override
  public void run(String... args) throws Exception {
    String json = mapper.writeValueAsString(new Reply("a", 8));
    Reply back = mapper.readValue(json, Reply.class);
    if (!json.contains("\"replica_id\"") || !back.equals(new Reply("a", 8))
        || !mapper.readValue(json, Map.class).containsKey("replica_id")) {
      throw new IllegalStateException("Jackson 2 round trip failed: " + json + " -> " + back);
    }
    System.out.println("Jackson " + com.fasterxml.jackson.databind.cfg.PackageVersion.VERSION
        + " on jackson-annotations "
        + JsonProperty.class.getPackage().getImplementationVersion() + ": " + json);
  }
}
