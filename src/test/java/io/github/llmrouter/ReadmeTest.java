package io.github.llmrouter;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The README says what the build proves: its quick start is the file the build compiles and runs. */
class ReadmeTest {
  private static final Path README = Path.of("README.md");
  private static final Path QUICK_START = Path.of("src/it/quick-start/src/main/java/QuickStart.java");

  @Test
  void quickStartIsTheFileTheConsumerProjectCompilesAndRuns() throws IOException {
    assertThat(codeBlockAfter("## Quick start", "java"))
        .isEqualTo(Files.readString(QUICK_START));
  }

  @Test
  void dependencySnippetNamesThisBuildsVersion() throws IOException {
    Matcher pom = Pattern.compile("<artifactId>llm-router</artifactId>\\s*<version>([^<]+)</version>")
        .matcher(Files.readString(Path.of("pom.xml")));
    assertThat(pom.find()).isTrue();
    assertThat(codeBlockAfter("## Add the dependency", "xml"))
        .contains("<version>" + pom.group(1) + "</version>");
  }

  /** The first fenced block of {@code language} after {@code heading}, without its fences. */
  private static String codeBlockAfter(String heading, String language) throws IOException {
    String readme = Files.readString(README);
    int section = readme.indexOf("\n" + heading + "\n");
    assertThat(section).as("README section %s", heading).isNotNegative();
    int open = readme.indexOf("\n```" + language + "\n", section);
    assertThat(open).as("a %s block under %s", language, heading).isNotNegative();
    int start = open + language.length() + 5;
    int close = readme.indexOf("\n```\n", start - 1);
    return readme.substring(start, close + 1);
  }
}
