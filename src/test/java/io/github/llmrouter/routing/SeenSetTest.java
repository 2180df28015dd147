package io.github.llmrouter.routing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The set of replicas a ranking has returned, across the 64-replica word boundaries. */
class SeenSetTest {
  @ParameterizedTest(name = "{0} replicas")
  @ValueSource(ints = {1, 63, 64, 65, 128, 129, 200, 256})
  void containsExactlyWhatWasAdded(int size) {
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < size; i++) order.add(i);
    Collections.shuffle(order, new Random(size));
    SeenSet seen = new SeenSet();
    for (int k = 0; k < size; k++) {
      int index = order.get(k);
      assertThat(seen.contains(index)).isFalse();
      seen.add(index, size);
      for (int j = 0; j <= k; j++) assertThat(seen.contains(order.get(j))).isTrue();
      for (int j = k + 1; j < size; j++) assertThat(seen.contains(order.get(j))).isFalse();
    }
  }
}
