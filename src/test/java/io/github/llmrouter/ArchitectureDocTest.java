package io.github.llmrouter;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** docs/architecture.md names the classes and methods the code has: it cannot go stale. */
class ArchitectureDocTest {
  private static final Path DOC = Path.of("docs/architecture.md");
  private static final Path INTERNAL = Path.of("src/main/java/io/github/llmrouter/internal");
  /** A class name: two or more capitalised words run together ({@code LlmClient}, {@code Pick}). */
  private static final Pattern NAME = Pattern.compile(
      "(?<![\\w.@])([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+|[A-Z][a-z]{2,})((?:\\.[A-Za-z]\\w*)?)(?![\\w])");

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

  @Test
  void everyClassAndMethodTheDocumentNamesExists() throws IOException {
    Map<String, String> sources = sources();
    String doc = Files.readString(DOC);
    List<String> missing = new ArrayList<>();
    for (String text : namedText(doc)) {
      Matcher m = NAME.matcher(text);
      while (m.find()) {
        String type = m.group(1);
        String member = m.group(2).isEmpty() ? null : m.group(2).substring(1);
        String source = sources.get(type);
        if (source == null) {
          if (looksLikeCode(type)) missing.add(type);
          continue;
        }
        if (member != null && !declares(source, member)) missing.add(type + "." + member);
      }
    }
    assertThat(missing).as("named in %s but not in the code", DOC).isEmpty();
  }

  /** The document's code spans and diagrams: where it names code. */
  private static List<String> namedText(String doc) {
    List<String> out = new ArrayList<>();
    Matcher block = Pattern.compile("```[a-z]*\\n(.*?)```", Pattern.DOTALL).matcher(doc);
    while (block.find()) out.add(block.group(1));
    String prose = block.replaceAll("");
    Matcher span = Pattern.compile("`([^`\\n]+)`").matcher(prose);
    while (span.find()) out.add(span.group(1));
    return out;
  }

  /** Whether {@code source} declares {@code member}: a method, field, constant or nested type. */
  private static boolean declares(String source, String member) {
    return Pattern.compile("(?m)^\\s+(?:[\\w<>\\[\\],.?@& ]+\\s)?" + Pattern.quote(member)
        + "\\s*[(=;{<]|(?:class|interface|record|enum)\\s+" + Pattern.quote(member) + "\\b"
        + "|^\\s+" + Pattern.quote(member) + "[,;(]")
        .matcher(source).find();
  }

  /** A name shaped like a class (two capitalised words at least), not an English word. */
  private static boolean looksLikeCode(String name) {
    return name.chars().filter(Character::isUpperCase).count() >= 2
        && !Set.of("OpenAI", "OkHttp", "JSpecify", "NullAway", "GenAI", "IOException")
            .contains(name);
  }

  /** Every class of the build's sources by simple name (nested ones with their file's text). */
  private static Map<String, String> sources() throws IOException {
    Map<String, String> out = new HashMap<>();
    for (String root : List.of("src/main/java", "src/test/java", "src/sim/java",
        "src/emulator/java")) {
      try (Stream<Path> files = Files.walk(Path.of(root))) {
        for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
          String text = Files.readString(f);
          out.put(f.getFileName().toString().replace(".java", ""), text);
          Matcher nested = Pattern.compile("(?:class|interface|record|enum)\\s+([A-Z]\\w*)")
              .matcher(text);
          while (nested.find()) out.putIfAbsent(nested.group(1), text);
        }
      }
    }
    return out;
  }
}
