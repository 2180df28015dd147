package io.github.llmrouter.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Redactor: a secret goes in every form a server may echo it in; nothing else is touched. */
class RedactorTest {
  private static final String SECRET = "sk-a/b+c&d\"e<f>";
  private final Redactor redactor = Redactor.of(List.of(SECRET));

  @Test
  void aSecretAsSentIsReplaced() {
    assertThat(redactor.redact("Authorization: Bearer " + SECRET + " ok"))
        .isEqualTo("Authorization: Bearer <redacted> ok");
  }

  @Test
  void aJsonEscapedSecretIsReplaced() {
    assertThat(redactor.redact("{\"m\":\"sk-a\\/b+c\\u0026d\\\"e\\u003cf\\u003E\"}"))
        .isEqualTo("{\"m\":\"<redacted>\"}");
  }

  @Test
  void aUrlEncodedSecretIsReplacedInEitherCase() {
    String encoded = URLEncoder.encode(SECRET, StandardCharsets.UTF_8);
    assertThat(redactor.redact("q=" + encoded)).isEqualTo("q=<redacted>");
    assertThat(redactor.redact("q=" + encoded.toLowerCase())).isEqualTo("q=<redacted>");
  }

  @Test
  void anHtmlEscapedSecretIsReplaced() {
    assertThat(redactor.redact("<pre>sk-a&#x2F;b&#43;c&amp;d&quot;e&lt;f&gt;</pre>"))
        .isEqualTo("<pre><redacted></pre>");
  }

  @Test
  void aSecretBrokenByWhitespaceIsReplaced() {
    assertThat(redactor.redact("key: sk-a/\n   b+c&d\"e\t<f>.")).isEqualTo("key: <redacted>.");
    assertThat(redactor.redact("\"sk-a/b+c\\n&d\\\"e<f>\"")).isEqualTo("\"<redacted>\"");
  }

  @Test
  void whitespaceWithinASecretMayBeEchoedAsAnyWhitespaceOrPlus() {
    Redactor spaced = Redactor.of(List.of("tenant token 42"));
    assertThat(spaced.redact("a tenant+token%2042 b")).isEqualTo("a <redacted> b");
    assertThat(spaced.redact("a tenant\n token  42 b")).isEqualTo("a <redacted> b");
  }

  @Test
  void quotesAndBackslashesEscapedTheShortJsonWayAreFound() {
    Redactor quoted = Redactor.of(List.of("it's\\a\"key\"/x"));
    assertThat(quoted.redact("[it\\'s\\\\a\\\"key\\\"\\/x]")).isEqualTo("[<redacted>]");
  }

  @Test
  void aTextCutInTheMiddleOfASecretLosesTheCutStart() {
    assertThat(redactor.redact("Bearer sk-a/b")).isEqualTo("Bearer <redacted>");
    assertThat(redactor.redact("Bearer sk-a")).as("four characters: cut").isEqualTo(
        "Bearer <redacted>");
    assertThat(redactor.redact("sk-a/b+c&d\"e<f")).as("all but the last character")
        .isEqualTo("<redacted>");
    assertThat(redactor.redact("Bearer sk-")).as("under four characters: too short to tell")
        .isEqualTo("Bearer sk-");
  }

  @Test
  void textWithoutSecretsIsReturnedAsIs() {
    String text = "the model is overloaded; retry later";
    assertThat(redactor.redact(text)).isSameAs(text);
  }

  @Test
  void shortAndBlankValuesAreNotSecrets() {
    Redactor r = Redactor.of(List.of("1", "  ", "true", "abcde"));
    assertThat(r).isSameAs(Redactor.NONE);
    assertThat(r.redact("true 1 abcde")).isEqualTo("true 1 abcde");
    assertThat(Redactor.of(List.of("  abcdef  ")).redact("x abcdef y")).isEqualTo("x <redacted> y");
  }

  @Test
  void aLongerSecretContainingAShorterOneGoesWhole() {
    Redactor r = Redactor.of(List.of("secret", "secret-and-more"));
    assertThat(r.redact("[secret-and-more] [secret]")).isEqualTo("[<redacted>] [<redacted>]");
  }

  @Test
  void plusAddsSecretsAndKeepsTheFirst() {
    Redactor both = redactor.plus(List.of("tenant-token-9"));
    assertThat(both.redact(SECRET + " tenant-token-9")).isEqualTo("<redacted> <redacted>");
    assertThat(redactor.plus(List.of("x"))).isSameAs(redactor);
  }

  @Test
  void toStringNamesNoSecret() {
    assertThat(redactor.toString()).doesNotContain("sk-").contains("1 secret");
  }
}
