package io.github.llmrouter.internal.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.dispatch.Admission;
import io.github.llmrouter.dispatch.CircuitBreakerPolicy;
import io.github.llmrouter.dispatch.HedgePolicy;
import io.github.llmrouter.dispatch.RetryPolicy;
import io.github.llmrouter.internal.health.StatusTracker;
import io.github.llmrouter.internal.transport.AdapterLoader;
import io.github.llmrouter.internal.transport.ModelDiscovery;
import io.github.llmrouter.internal.transport.ModelList;
import io.github.llmrouter.observe.RoutingListener;
import io.github.llmrouter.replica.LoraAdapter;
import io.github.llmrouter.replica.OutlierDetection;
import io.github.llmrouter.routing.RoutingPolicy;
import io.github.llmrouter.testing.ManualTicker;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.Test;

/** What the client does about listings while it unloads an adapter it loaded on demand. */
class AdapterPlacementTest {
  private final ManualTicker ticker = new ManualTicker();

  private AdapterPlacement placement() {
    DispatcherConfig config = new DispatcherConfig(RoutingPolicy.roundRobin(),
        RetryPolicy.defaults(), HedgePolicy.disabled(), Duration.ZERO,
        CircuitBreakerPolicy.disabled(), Admission.disabled(), 16, Duration.ofSeconds(3), ticker,
        RoutingListener.NONE, () -> false, 0);
    StatusTracker statuses = new StatusTracker(OutlierDetection.disabled(), Duration.ZERO,
        Duration.ZERO, ticker, RoutingListener.NONE);
    FleetState fleet = new FleetState(config, statuses, () -> {
      throw new AssertionError("nothing here is scheduled");
    });
    return new AdapterPlacement(List.of(LoraAdapter.of("a1", "base", "/adapters/a1")),
        new AdapterLoader(new OkHttpClient(), null), fleet, ticker);
  }

  @Test
  void aListingAnsweredDuringAnUnloadHidesTheAdapterUntilEveryListingAskedBeforeHasEnded() {
    AdapterPlacement placement = placement();
    ModelList listed = new ModelList(Set.of("base", "a1", "a2"), Set.of(),
        Map.of("a1", "base", "a2", "base"));
    assertThat(placement.withoutUnloaded("r", listed)).isSameAs(listed);

    placement.unloading("r", "a1");
    ModelList during = placement.withoutUnloaded("r", listed);
    assertThat(during.models()).containsExactlyInAnyOrder("base", "a2");
    assertThat(during.parents()).containsOnlyKeys("a2");
    assertThat(placement.withoutUnloaded("other", listed)).as("another replica").isSameAs(listed);
    ticker.advance(Duration.ofMinutes(5)); // an unload still under way is never forgotten
    assertThat(placement.withoutUnloaded("r", listed).models()).doesNotContain("a1");

    placement.unloaded("r", "a1");
    ticker.advance(ModelDiscovery.LISTING_TIMEOUT);
    assertThat(placement.withoutUnloaded("r", listed).models()).doesNotContain("a1");
    ticker.advance(ModelDiscovery.LISTING_TIMEOUT.plusMillis(1));
    assertThat(placement.withoutUnloaded("r", listed)).as("listed again since").isSameAs(listed);
  }
}
