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
    assertThat(RetryAfter.parse("7")).isEqualTo(Duration.ofSeconds(7));
    assertThat(RetryAfter.parse(" 0 ")).isEqualTo(Duration.ZERO);
  }

  @Test
  void parsesHttpDates() {
    String inAMinute = DateTimeFormatter.RFC_1123_DATE_TIME.format(
        ZonedDateTime.now(ZoneOffset.UTC).plusSeconds(60));
    assertThat(RetryAfter.parse(inAMinute))
        .isBetween(Duration.ofSeconds(50), Duration.ofSeconds(61));
    String past = "Wed, 21 Oct 2015 07:28:00 GMT";
    assertThat(RetryAfter.parse(past)).isEqualTo(Duration.ZERO);
  }

  @Test
  void ignoresGarbage() {
    assertThat(RetryAfter.parse(null)).isNull();
    assertThat(RetryAfter.parse("")).isNull();
    assertThat(RetryAfter.parse("-3")).isNull();
    assertThat(RetryAfter.parse("soon")).isNull();
  }
}
