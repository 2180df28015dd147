package io.github.llmrouter.internal.transport;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Takes the secrets a client sends (its API key, every header value of a replica) out of text
 * that comes from a server, before that text is stored anywhere: servers and the proxies in front
 * of them echo requests back in their error pages.
 *
 * <p>A secret is found as sent, and also JSON-escaped ({@code \/}, {@code \u0041}), URL-encoded
 * ({@code %2F}, {@code +}), HTML-escaped ({@code &amp;}, {@code &#47;}) or broken by whitespace
 * (a wrapped line), each character in any of these forms; it is replaced by {@value #REDACTED}. A
 * text that ends in the first {@value #MIN_TAIL_CHARS} or more characters of a secret (a body cut
 * mid-secret) loses that tail too. Values shorter than {@value #MIN_SECRET_CHARS} characters are
 * not secrets (they would match ordinary words); nor is whitespace around a value.
 *
 * <p>Immutable and thread-safe. Building one compiles a pattern per secret; redacting costs a scan
 * of the text per secret, paid only on the error path.
 */
final class Redactor {
  /** What a secret is replaced by: {@value}. */
  static final String REDACTED = "<redacted>";
  /** The shortest value treated as a secret: {@value} characters. */
  static final int MIN_SECRET_CHARS = 6;
  /** The shortest cut-off start of a secret removed from the end of a text: {@value}. */
  static final int MIN_TAIL_CHARS = 4;
  /** Nothing to redact. */
  static final Redactor NONE = new Redactor(List.of(), List.of());

  /** Between two characters of a secret: whitespace, also escaped, as a wrapped line has. */
  private static final String GAP = "(?:\\s|\\\\[nrt]|%0[9aAdD]|%20|&#(?:9|10|13|32);|&nbsp;)*+";

  private final List<String> secrets;
  private final List<Pattern> patterns;

  private Redactor(List<String> secrets, List<Pattern> patterns) {
    this.secrets = secrets;
    this.patterns = patterns;
  }

  /**
   * A redactor for {@code values}; blank values and values under {@value #MIN_SECRET_CHARS}
   * characters (after trimming) are skipped.
   */
  static Redactor of(Collection<String> values) {
    return NONE.plus(values);
  }

  /** This redactor and {@code values} too; {@code this} if none of them is a secret. */
  Redactor plus(Collection<String> values) {
    Set<String> all = new LinkedHashSet<>(secrets);
    for (String v : values) {
      String s = v.strip();
      if (s.length() >= MIN_SECRET_CHARS) all.add(s);
    }
    if (all.size() == secrets.size()) return this;
    // Longer secrets first: one that contains another is taken out whole.
    List<String> sorted = new ArrayList<>(all);
    sorted.sort((a, b) -> Integer.compare(b.length(), a.length()));
    List<Pattern> compiled = new ArrayList<>(sorted.size());
    for (String s : sorted) compiled.add(pattern(s));
    return new Redactor(List.copyOf(sorted), List.copyOf(compiled));
  }

  /** {@code text} without any secret; the same instance if it held none. */
  String redact(String text) {
    String out = text;
    for (int k = 0; k < patterns.size(); k++) {
      Matcher m = patterns.get(k).matcher(out);
      if (m.find()) out = m.replaceAll(REDACTED);
      out = withoutTail(out, secrets.get(k));
    }
    return out;
  }

  /** {@code text} less a trailing start of {@code secret} as sent, if one is there. */
  private static String withoutTail(String text, String secret) {
    int longest = Math.min(secret.length() - 1, text.length());
    for (int n = longest; n >= MIN_TAIL_CHARS; n--) {
      if (text.regionMatches(text.length() - n, secret, 0, n)) {
        return text.substring(0, text.length() - n) + REDACTED;
      }
    }
    return text;
  }

  private static Pattern pattern(String secret) {
    StringBuilder regex = new StringBuilder();
    int i = 0;
    while (i < secret.length()) {
      int c = secret.codePointAt(i);
      i += Character.charCount(c);
      if (regex.length() > 0) regex.append(GAP);
      if (Character.isWhitespace(c)) {
        // Whitespace within a value may be sent or echoed as any whitespace, or as '+'.
        regex.append("(?:\\+|").append(GAP.substring(0, GAP.length() - 2)).append(")*+");
        continue;
      }
      regex.append("(?:").append(forms(c)).append(')');
    }
    return Pattern.compile(regex.toString(), Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE);
  }

  /** The alternatives for one character: itself and its escaped forms. */
  private static String forms(int c) {
    List<String> forms = new ArrayList<>();
    forms.add(Pattern.quote(new String(Character.toChars(c))));
    // JSON: \\uXXXX (one or two, for a surrogate pair), and the short escapes.
    StringBuilder json = new StringBuilder();
    for (char unit : Character.toChars(c)) {
      json.append("\\\\u").append(String.format(Locale.ROOT, "%04x", (int) unit));
    }
    forms.add(json.toString());
    if (c == '/' || c == '"' || c == '\\' || c == '\'') forms.add("\\\\" + Pattern.quote(
        String.valueOf((char) c)));
    // URL: the UTF-8 bytes, percent-encoded.
    StringBuilder url = new StringBuilder();
    for (byte b : new String(Character.toChars(c)).getBytes(StandardCharsets.UTF_8)) {
      url.append('%').append(String.format(Locale.ROOT, "%02x", b & 0xFF));
    }
    forms.add(url.toString());
    // HTML: numeric references, and the named ones a page escapes.
    forms.add("&#0*" + c + ";");
    forms.add("&#x0*" + Integer.toHexString(c) + ";");
    switch (c) {
      case '&' -> forms.add("&amp;");
      case '<' -> forms.add("&lt;");
      case '>' -> forms.add("&gt;");
      case '"' -> forms.add("&quot;");
      case '\'' -> forms.add("&apos;");
      default -> { }
    }
    return String.join("|", forms);
  }

  @Override
  public String toString() {
    return "Redactor{" + secrets.size() + " secrets}"; // never the values
  }
}
