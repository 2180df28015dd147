package io.github.llmrouter.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.testing.ManualTicker;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RateLimitedLogTest {
  private final ManualTicker ticker = new ManualTicker();
  private final RateLimitedLog log = new RateLimitedLog(ticker, Duration.ofMinutes(1).toNanos());

  @Test
  void oneMessageAMinuteGoesThroughSayingHowManyWereHeldBack() {
    assertThat(log.permit()).as("the first").isZero();
    assertThat(log.permit()).isEqualTo(-1);
    assertThat(log.permit()).isEqualTo(-1);
    ticker.advance(Duration.ofSeconds(59));
    assertThat(log.permit()).isEqualTo(-1);
    ticker.advance(Duration.ofSeconds(1));
    assertThat(log.permit()).as("a minute on: 3 held back").isEqualTo(3);
    assertThat(log.permit()).isEqualTo(-1);
  }

  @Test
  void afterAResetTheNextMessageGoesThroughAtOnce() {
    assertThat(log.permit()).isZero();
    assertThat(log.permit()).isEqualTo(-1);
    log.reset();
    assertThat(log.permit()).as("news: the failure ended and began again").isEqualTo(1);
    assertThat(log.permit()).isEqualTo(-1);
  }
}
