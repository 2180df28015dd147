package io.github.llmrouter.internal.load;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A parser for the Prometheus text exposition format (0.0.4) and the OpenMetrics text format as
 * far as a load scraper needs them: samples with labels, values and optional timestamps. It never
 * throws on bad input: a line that does not parse is skipped and counted in {@link
 * ParsedMetrics#malformedLines()}, and the rest of the text is still read.
 *
 * <p>Handled: blank lines; comments, {@code # HELP} and {@code # TYPE} lines (ignored);
 * OpenMetrics {@code # EOF} (parsing stops); metric names {@code [a-zA-Z_:][a-zA-Z0-9_:]*};
 * labels with {@code \\}, {@code \"} and {@code \n} escapes and an optional trailing comma;
 * values as Go's {@code ParseFloat} reads them, including {@code NaN}, {@code +Inf}, {@code -Inf};
 * an optional timestamp; an OpenMetrics exemplar ({@code # {...} v}) after the value.
 *
 * <pre>{@code
 * ParsedMetrics m = PrometheusText.parse(body);
 * double waiting = m.sum("vllm:num_requests_waiting", null, null);
 * }</pre>
 */
public final class PrometheusText {
  /** Lines longer than this are skipped as malformed, bounding the work per line: {@value}. */
  public static final int MAX_LINE_CHARS = 64 * 1024;

  private PrometheusText() {}

  /**
   * Parses {@code text}; never throws (other than for a null argument).
   *
   * @param text a Prometheus or OpenMetrics text exposition; not null
   * @return the samples that parsed, and a count of the lines that did not
   */
  public static ParsedMetrics parse(CharSequence text) {
    requireNonNull(text, "text");
    List<MetricSample> samples = new ArrayList<>();
    int malformed = 0;
    int n = text.length();
    int start = 0;
    while (start < n) {
      int end = start;
      while (end < n && text.charAt(end) != '\n') end++;
      int lineEnd = end > start && text.charAt(end - 1) == '\r' ? end - 1 : end;
      String line = text.subSequence(start, lineEnd).toString();
      start = end + 1;
      String trimmed = line.strip();
      if (trimmed.isEmpty()) continue;
      if (trimmed.charAt(0) == '#') {
        if (trimmed.equals("# EOF")) break;
        continue; // HELP, TYPE, UNIT and plain comments carry nothing a load report needs
      }
      MetricSample s = line.length() > MAX_LINE_CHARS ? null : parseSample(trimmed);
      if (s == null) {
        malformed++;
      } else {
        samples.add(s);
      }
    }
    return new ParsedMetrics(samples, malformed);
  }

  /** One sample line, or null if it does not parse. */
  static @Nullable MetricSample parseSample(String line) {
    try {
      int n = line.length();
      int i = 0;
      if (!isNameStart(line.charAt(0))) return null;
      while (i < n && isNameChar(line.charAt(i))) i++;
      String name = line.substring(0, i);
      Map<String, String> labels = Map.of();
      // Tokens may be separated by any number of blanks.
      while (i < n && isBlank(line.charAt(i))) i++;
      if (i < n && line.charAt(i) == '{') {
        labels = new LinkedHashMap<>();
        i = parseLabels(line, i + 1, labels);
        if (i < 0) return null;
        while (i < n && isBlank(line.charAt(i))) i++;
      }
      // Value, then optional timestamp, then optional exemplar.
      int valueStart = i;
      while (i < n && !isBlank(line.charAt(i))) i++;
      if (valueStart == i) return null;
      double value = parseValue(line.substring(valueStart, i));
      if (value != value && !isNaNText(line.substring(valueStart, i))) return null;
      while (i < n && isBlank(line.charAt(i))) i++;
      if (i < n && line.charAt(i) != '#') {
        int tsStart = i;
        while (i < n && !isBlank(line.charAt(i))) i++;
        double ts = parseValue(line.substring(tsStart, i));
        if (ts != ts) return null;
        while (i < n && isBlank(line.charAt(i))) i++;
      }
      if (i < n && line.charAt(i) != '#') return null; // anything else trailing is malformed
      return new MetricSample(name, labels, value);
    } catch (RuntimeException e) {
      return null; // defensive: a parser bug must cost a line, never a scrape
    }
  }

  /** Parses labels after '{' into {@code out}; returns the index after '}' or -1. */
  private static int parseLabels(String line, int i, Map<String, String> out) {
    int n = line.length();
    StringBuilder value = new StringBuilder();
    while (true) {
      while (i < n && isBlank(line.charAt(i))) i++;
      if (i >= n) return -1;
      if (line.charAt(i) == '}') return i + 1;
      int nameStart = i;
      if (!isLabelStart(line.charAt(i))) return -1;
      while (i < n && isLabelChar(line.charAt(i))) i++;
      String labelName = line.substring(nameStart, i);
      while (i < n && isBlank(line.charAt(i))) i++;
      if (i >= n || line.charAt(i) != '=') return -1;
      i++;
      while (i < n && isBlank(line.charAt(i))) i++;
      if (i >= n || line.charAt(i) != '"') return -1;
      i++;
      value.setLength(0);
      while (true) {
        if (i >= n) return -1;
        char c = line.charAt(i++);
        if (c == '"') break;
        if (c == '\\') {
          if (i >= n) return -1;
          char e = line.charAt(i++);
          if (e == 'n') value.append('\n');
          else if (e == '\\' || e == '"') value.append(e);
          else value.append('\\').append(e); // unknown escape: kept verbatim, as Prometheus does
        } else {
          value.append(c);
        }
      }
      if (out.put(labelName, value.toString()) != null) return -1; // duplicate label
      while (i < n && isBlank(line.charAt(i))) i++;
      if (i >= n) return -1;
      char c = line.charAt(i);
      if (c == ',') {
        i++;
      } else if (c != '}') {
        return -1;
      }
    }
  }

  /**
   * A value as Go's {@code strconv.ParseFloat} reads the forms exporters write: decimal and
   * exponent notation, {@code NaN}, {@code Inf}/{@code +Inf}/{@code -Inf} (any case); NaN for
   * anything else, which the caller tells apart from a real NaN.
   */
  static double parseValue(String s) {
    if (s.isEmpty()) return Double.NaN;
    String lower = s.toLowerCase(java.util.Locale.ROOT);
    switch (lower) {
      case "nan": return Double.NaN;
      case "inf": case "+inf": case "infinity": case "+infinity": return Double.POSITIVE_INFINITY;
      case "-inf": case "-infinity": return Double.NEGATIVE_INFINITY;
      default: break;
    }
    for (int k = 0; k < s.length(); k++) {
      char c = s.charAt(k);
      // Reject what Java accepts but Prometheus does not: 'd'/'f' suffixes, hex, "Infinity" inside.
      if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'
          )) {
        return Double.NaN;
      }
    }
    try {
      return Double.parseDouble(s);
    } catch (NumberFormatException e) {
      return Double.NaN;
    }
  }

  private static boolean isNaNText(String s) {
    return s.equalsIgnoreCase("nan");
  }

  private static boolean isBlank(char c) {
    return c == ' ' || c == '\t';
  }

  private static boolean isNameStart(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
  }

  private static boolean isNameChar(char c) {
    return isNameStart(c) || (c >= '0' && c <= '9');
  }

  private static boolean isLabelStart(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  }

  private static boolean isLabelChar(char c) {
    return isLabelStart(c) || (c >= '0' && c <= '9');
  }
}
