package io.github.llmrouter.internal.util;

import static java.util.Objects.requireNonNull;

import org.jspecify.annotations.Nullable;

/**
 * Checks HTTP header names and values against the field syntax of RFC 9110 (section 5), as sent
 * over HTTP/1.1 by OkHttp, so that a bad header fails when the configuration is built rather than
 * on every call. The client uses it for replica headers and the API key; a custom {@link
 * ReplicaResolver} may use it to reject bad input early.
 *
 * <p>A name is a non-empty token: letters, digits and {@code !#$%&'*+-.^_`|~}. A value is visible
 * ASCII, with spaces and horizontal tabs allowed inside it but not at either end; no control
 * character (a line break, NUL), no character above U+007E. Error messages name the header and
 * where it was configured, and say what is wrong with the value, but never show the value: header
 * values often hold credentials.
 *
 * <p>Stateless and thread-safe.
 */
public final class HeaderFields {
  private static final String TCHAR_SYMBOLS = "!#$%&'*+-.^_`|~";

  private HeaderFields() {}

  /**
   * Checks that {@code name} is a valid header name.
   *
   * @param name the header's name, shown in the message (with odd characters escaped)
   * @param where what the header belongs to, for the message (e.g. {@code "replica 10.0.0.7:8000"})
   * @throws IllegalArgumentException naming {@code where} and what is wrong
   */
  public static void checkName(String name, String where) {
    requireNonNull(name, "name");
    requireNonNull(where, "where");
    if (name.isEmpty()) throw new IllegalArgumentException(where + ": a header name is empty");
    for (int i = 0; i < name.length(); i++) {
      if (!isTchar(name.charAt(i))) {
        throw new IllegalArgumentException(where + ": header name '" + printable(name)
            + "' is not a token (RFC 9110: letters, digits and " + TCHAR_SYMBOLS + " only)");
      }
    }
  }

  /**
   * Checks that {@code value} is a valid value for header {@code name}; the message never shows
   * the value.
   *
   * @param name the header's name, shown in the message (checked separately by {@link #checkName})
   * @param value the value, never shown
   * @param where what the header belongs to, for the message
   * @throws IllegalArgumentException naming the header, {@code where} and what is wrong
   */
  public static void checkValue(String name, String value, String where) {
    requireNonNull(name, "name");
    requireNonNull(value, "value");
    requireNonNull(where, "where");
    String problem = valueProblem(value);
    if (problem != null) {
      throw new IllegalArgumentException(where + ": the value of header '" + printable(name)
          + "' " + problem + " (RFC 9110 field syntax; the value is not shown)");
    }
  }

  /** What is wrong with {@code value}, or null if it is a valid field value. */
  static @Nullable String valueProblem(String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '\r' || c == '\n') {
        return i == value.length() - 1 || value.substring(i).isBlank()
            ? "ends with a line break (a secret read from a file keeps its newline: strip it)"
            : "contains a line break";
      }
      if (c == '\t' || (c >= 0x20 && c <= 0x7E)) continue;
      if (c < 0x20 || c == 0x7F) return "contains a control character (U+" + hex(c) + ")";
      return "contains a non-ASCII character (encode the value, e.g. in Base64)";
    }
    if (!value.isEmpty() && (isBlank(value.charAt(0)) || isBlank(value.charAt(value.length() - 1)))) {
      return "starts or ends with whitespace";
    }
    return null;
  }

  private static boolean isBlank(char c) {
    return c == ' ' || c == '\t';
  }

  private static boolean isTchar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
        || TCHAR_SYMBOLS.indexOf(c) >= 0;
  }

  private static String hex(char c) {
    return String.format("%04X", (int) c);
  }

  /** A header name as it can be shown: control and non-ASCII characters escaped. */
  private static String printable(String name) {
    StringBuilder s = new StringBuilder(Math.min(name.length(), 64) + 8);
    for (int i = 0; i < name.length() && i < 64; i++) {
      char c = name.charAt(i);
      if (c >= 0x20 && c < 0x7F) s.append(c);
      else s.append("\\u").append(hex(c));
    }
    if (name.length() > 64) s.append("...");
    return s.toString();
  }
}
