package io.github.llmrouter.internal.load;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Which LoRA adapters a replica is running or queueing now, and how many it runs at once, from
 * vLLM's {@code vllm:lora_requests_info} gauge: its labels {@code running_lora_adapters} and
 * {@code waiting_lora_adapters} (comma-separated names) and {@code max_lora}. The gauge keeps a
 * sample for every set of labels it ever had, each valued with the time it was last set; the one
 * of greatest value is the current one. Immutable.
 *
 * @param active the adapters with requests running or waiting, at most {@link #MAX_ADAPTERS}
 * @param maxLora adapters the replica runs at once; 0 when not reported
 */
public record AdapterActivity(List<String> active, int maxLora) {
  /** Adapters read from one report at most: {@value}. */
  public static final int MAX_ADAPTERS = 256;
  static final String GAUGE = "vllm:lora_requests_info";

  /** Copies the list. */
  public AdapterActivity {
    active = List.copyOf(active);
  }

  /**
   * The activity {@code metrics} report, or null if they have no such gauge. Malformed labels
   * read as absent: a name list that is not one, or a {@code max_lora} that is not a positive
   * integer, never fails the scrape.
   */
  public static @Nullable AdapterActivity of(ParsedMetrics metrics) {
    MetricSample current = null;
    for (MetricSample s : metrics.samples(GAUGE)) {
      if (current == null || s.value() > current.value()) current = s;
    }
    if (current == null) return null;
    Set<String> active = new LinkedHashSet<>();
    names(current.label("running_lora_adapters"), active);
    names(current.label("waiting_lora_adapters"), active);
    return new AdapterActivity(new ArrayList<>(active), maxLora(current.label("max_lora")));
  }

  private static void names(@Nullable String list, Set<String> into) {
    if (list == null) return;
    for (String name : list.split(",", -1)) {
      String n = name.trim();
      if (!n.isEmpty() && into.size() < MAX_ADAPTERS) into.add(n);
    }
  }

  private static int maxLora(@Nullable String value) {
    if (value == null) return 0;
    try {
      int n = Integer.parseInt(value.trim());
      return n > 0 ? n : 0;
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
