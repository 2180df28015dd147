package io.github.llmrouter;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** docs/architecture.md names the classes the code has: its package table cannot go stale. */
class ArchitectureDocTest {
  private static final Path DOC = Path.of("docs/architecture.md");
  private static final Path INTERNAL = Path.of("src/main/java/io/github/llmrouter/internal");

  @Test
  void theTableListsEveryClassOfEachInternalPackageAndNoOther() throws IOException {
    String doc = Files.readString(DOC);
    for (String pkg : new String[] {"dispatch", "transport", "health", "load", "util"}) {
      Matcher row = Pattern.compile("\\n\\| `internal\\." + pkg + "` \\| ([^\\n]*)\\|\\n").matcher(doc);
      assertThat(row.find()).as("a row for internal.%s", pkg).isTrue();
      Set<String> named = new TreeSet<>();
      Matcher name = Pattern.compile("`(\\w+)`").matcher(row.group(1));
      while (name.find()) named.add(name.group(1));
      Set<String> classes = new TreeSet<>();
      try (Stream<Path> files = Files.list(INTERNAL.resolve(pkg))) {
        files.map(f -> f.getFileName().toString()).filter(f -> !f.equals("package-info.java"))
            .forEach(f -> classes.add(f.replace(".java", "")));
      }
      assertThat(named).as("internal.%s", pkg).isEqualTo(classes);
    }
  }
}
