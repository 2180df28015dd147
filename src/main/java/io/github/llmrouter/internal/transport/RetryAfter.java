package io.github.llmrouter.internal.transport;

import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import okhttp3.Headers;
import okhttp3.Interceptor;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;

/** The {@code Retry-After} of a response: kept from OkHttp's sight, then read. Stateless. */
final class RetryAfter {
  /** The longest {@code Retry-After} read; longer ones are read as this. */
  private static final Duration MAX_RETRY_AFTER = Duration.ofDays(1);

  private static final String HIDDEN_RETRY_AFTER = "X-LLM-Router-Retry-After";

  /**
   * A network interceptor every client installs: it moves {@code Retry-After} out of OkHttp's
   * sight. OkHttp's follow-up logic silently repeats a 503 carrying {@code Retry-After: 0} on the
   * same replica, even with retry-on-connection-failure off; our dispatcher must see that 503 to
   * count it, budget it and fail over to another replica.
   */
  static final Interceptor HIDE = chain -> {
    Response response = chain.proceed(chain.request());
    String retryAfter = response.header("Retry-After");
    if (retryAfter == null) return response;
    return response.newBuilder().removeHeader("Retry-After")
        .header(HIDDEN_RETRY_AFTER, retryAfter).build();
  };

  private RetryAfter() {}

  /**
   * {@code headers} as the replica sent them: a {@code Retry-After} the interceptor hid is named
   * so again, for the raw answers handed to callers.
   */
  static Headers restored(Headers headers) {
    String hidden = headers.get(HIDDEN_RETRY_AFTER);
    if (hidden == null) return headers;
    return headers.newBuilder().removeAll(HIDDEN_RETRY_AFTER).add("Retry-After", hidden).build();
  }

  /** {@return the {@code Retry-After} of {@code response}, hidden from OkHttp or not; or null} */
  static @Nullable Duration of(Response response) {
    return parse(response.header(HIDDEN_RETRY_AFTER, response.header("Retry-After")));
  }

  /**
   * Parses {@code Retry-After} as delta-seconds or an HTTP date; null if absent or invalid. Values
   * beyond a day are read as a day (the policy's cap is far below), so no later arithmetic
   * overflows.
   */
  static @Nullable Duration parse(@Nullable String value) {
    if (value == null || value.isBlank()) return null;
    String v = value.trim();
    if (v.chars().allMatch(c -> c >= '0' && c <= '9')) {
      // 1*DIGIT; more digits than a long holds is still "a very long time".
      return v.length() > 9 ? MAX_RETRY_AFTER
          : min(Duration.ofSeconds(Long.parseLong(v)), MAX_RETRY_AFTER);
    }
    try {
      ZonedDateTime at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME);
      Duration d = Duration.ofMillis(at.toInstant().toEpochMilli() - System.currentTimeMillis());
      return d.isNegative() ? Duration.ZERO : min(d, MAX_RETRY_AFTER);
    } catch (DateTimeParseException | ArithmeticException notADate) {
      return null;
    }
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }
}
