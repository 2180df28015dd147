package io.github.llmrouter.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import org.junit.jupiter.api.Test;

class RetryAfterTest {
  @Test
  void parsesDeltaSeconds() {
    assertThat(HttpTransport.parseRetryAfter("7")).isEqualTo(Duration.ofSeconds(7));
    assertThat(HttpTransport.parseRetryAfter(" 0 ")).isEqualTo(Duration.ZERO);
  }

  @Test
  void parsesHttpDates() {
    String inAMinute = DateTimeFormatter.RFC_1123_DATE_TIME.format(
        ZonedDateTime.now(ZoneOffset.UTC).plusSeconds(60));
    assertThat(HttpTransport.parseRetryAfter(inAMinute))
        .isBetween(Duration.ofSeconds(50), Duration.ofSeconds(61));
    String past = "Wed, 21 Oct 2015 07:28:00 GMT";
    assertThat(HttpTransport.parseRetryAfter(past)).isEqualTo(Duration.ZERO);
  }

  @Test
  void ignoresGarbage() {
    assertThat(HttpTransport.parseRetryAfter(null)).isNull();
    assertThat(HttpTransport.parseRetryAfter("")).isNull();
    assertThat(HttpTransport.parseRetryAfter("-3")).isNull();
    assertThat(HttpTransport.parseRetryAfter("soon")).isNull();
  }
}
