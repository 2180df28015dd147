package io.github.llmrouter;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.spi.ToolProvider;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The public API is what {@code api/llm-router.api} says, nothing more or less: every public and
 * protected type, constructor, method and field outside the {@code internal} packages, one line
 * each. A change to the API fails the build until the file is rewritten on purpose, so that no
 * public signature changes by accident:
 *
 * <pre>{@code mvn -B test -Dtest=ApiSurfaceTest -Dllmrouter.api.write=true}</pre>
 *
 * <p>It also holds the rules that keep the API small: no public signature names an {@code
 * internal} type, and no two packages of the library depend on each other, directly or around a
 * loop (checked with {@code jdeps} on the compiled classes).
 */
class ApiSurfaceTest {
  static final Path API_FILE = Path.of("api/llm-router.api");
  private static final String ROOT = "io.github.llmrouter";

  @Test
  void thePublicApiIsTheCheckedInOne() throws Exception {
    String dump = dump(classesDirectory());
    if (Boolean.getBoolean("llmrouter.api.write")) {
      Files.createDirectories(API_FILE.getParent());
      Files.writeString(API_FILE, dump, StandardCharsets.UTF_8);
    }
    String checkedIn = Files.exists(API_FILE) ? Files.readString(API_FILE) : "";
    Set<String> expected = signatures(checkedIn);
    Set<String> actual = signatures(dump);
    List<String> removed = expected.stream().filter(l -> !actual.contains(l)).toList();
    List<String> added = actual.stream().filter(l -> !expected.contains(l)).toList();
    assertThat(removed).as("public API in %s but no longer in the code (a removed or changed "
        + "signature breaks users; if meant, list it in CHANGELOG.md and rewrite the file with "
        + "-Dllmrouter.api.write=true)", API_FILE).isEmpty();
    assertThat(added).as("public API in the code but not in %s (rewrite the file with "
        + "-Dllmrouter.api.write=true once the addition is meant, documented and @since-tagged)",
        API_FILE).isEmpty();
    assertThat(dump.equals(checkedIn)).as("%s has the same lines in another order or twice; "
        + "rewrite it with -Dllmrouter.api.write=true", API_FILE).isTrue();
  }

  @Test
  void noPublicSignatureNamesAnInternalType() throws Exception {
    List<String> leaks = dump(classesDirectory()).lines()
        .filter(l -> l.contains(ROOT + ".internal.")).toList();
    assertThat(leaks).isEmpty();
  }

  @Test
  void everyPublicTypeSaysSinceWhen() throws IOException {
    Path sources = Path.of("src/main/java/io/github/llmrouter");
    List<String> untagged;
    try (Stream<Path> files = Files.walk(sources)) {
      untagged = files.filter(f -> f.toString().endsWith(".java"))
          .filter(f -> !f.toString().contains("/internal/"))
          .filter(f -> !f.getFileName().toString().equals("package-info.java"))
          .filter(f -> {
            try {
              String text = Files.readString(f);
              return text.contains("\npublic ") && !text.contains("\n * @since ");
            } catch (IOException e) {
              throw new java.io.UncheckedIOException(e);
            }
          })
          .map(Path::toString).sorted().toList();
    }
    assertThat(untagged).as("public types without @since").isEmpty();
  }

  @Test
  void noPackageCycles() throws Exception {
    Map<String, Set<String>> edges = packageDependencies(classesDirectory());
    List<List<String>> cycles = stronglyConnected(edges).stream().filter(c -> c.size() > 1)
        .toList();
    assertThat(cycles).as("packages that depend on each other (%s)", edges).isEmpty();
  }

  @Test
  void aMemberIsKnownByItsTypeSoARemovalIsSeenWhereverTheSameLineRemains() {
    String before = "record a.A {\n  public boolean saturated()\n}\n\nrecord a.B {\n"
        + "  public boolean saturated()\n}\n";
    String after = "record a.A {\n}\n\nrecord a.B {\n  public boolean saturated()\n}\n";
    Set<String> removed = new LinkedHashSet<>(signatures(before));
    removed.removeAll(signatures(after));
    assertThat(removed).containsExactly("record a.A | public boolean saturated()");
  }

  @Test
  void theCycleCheckFindsLoopsAndOnlyLoops() {
    Map<String, Set<String>> edges = Map.of("a", Set.of("b"), "b", Set.of("c"), "c", Set.of("a"),
        "d", Set.of("a"));
    assertThat(stronglyConnected(edges).stream().filter(c -> c.size() > 1).toList())
        .singleElement().satisfies(c -> assertThat(c).containsExactlyInAnyOrder("a", "b", "c"));
  }

  /** Each line of an API text with the type it belongs to: {@code "type header | member"}. */
  static Set<String> signatures(String api) {
    Set<String> out = new LinkedHashSet<>();
    String type = "";
    for (String line : api.lines().toList()) {
      if (line.isEmpty() || line.equals("}")) continue;
      if (line.endsWith(" {")) {
        type = line.substring(0, line.length() - 2);
        out.add(type);
      } else {
        out.add(type + " | " + line.strip());
      }
    }
    return out;
  }

  /** The API file's text for the classes under {@code classes}. */
  static String dump(Path classes) throws IOException, ClassNotFoundException {
    List<String> names;
    try (Stream<Path> files = Files.walk(classes)) {
      names = files.map(classes::relativize).map(Path::toString)
          .filter(f -> f.endsWith(".class") && !f.endsWith("package-info.class"))
          .map(f -> f.substring(0, f.length() - ".class".length()).replace('/', '.')
              .replace('\\', '.'))
          .filter(n -> !n.startsWith(ROOT + ".internal."))
          .sorted().toList();
    }
    StringBuilder out = new StringBuilder();
    for (String name : names) {
      Class<?> type = Class.forName(name, false, ApiSurfaceTest.class.getClassLoader());
      if (!isApi(type)) continue;
      out.append(header(type)).append(" {\n");
      TreeSet<String> members = new TreeSet<>();
      boolean extendable = !Modifier.isFinal(type.getModifiers()) && !type.isInterface();
      for (Constructor<?> c : type.getDeclaredConstructors()) {
        if (visible(c.getModifiers(), extendable) && !c.isSynthetic()) {
          members.add(c.toGenericString());
        }
      }
      for (Method m : type.getDeclaredMethods()) {
        if (visible(m.getModifiers(), extendable) && !m.isSynthetic() && !m.isBridge()) {
          members.add(m.toGenericString());
        }
      }
      for (Field f : type.getDeclaredFields()) {
        if (visible(f.getModifiers(), extendable) && !f.isSynthetic()) {
          members.add(f.toGenericString());
        }
      }
      String own = type.getTypeName() + ".";
      for (String m : members) out.append("  ").append(m.replace(own, "")).append('\n');
      out.append("}\n\n");
    }
    return out.toString();
  }

  private static boolean isApi(Class<?> type) {
    if (type.isAnonymousClass() || type.isLocalClass() || type.isSynthetic()) return false;
    for (Class<?> t = type; t != null; t = t.getDeclaringClass()) {
      int m = t.getModifiers();
      boolean reachable = Modifier.isPublic(m)
          || (Modifier.isProtected(m) && t.getDeclaringClass() != null
              && !Modifier.isFinal(t.getDeclaringClass().getModifiers()));
      if (!reachable) return false;
    }
    return true;
  }

  private static boolean visible(int modifiers, boolean extendable) {
    return Modifier.isPublic(modifiers) || (extendable && Modifier.isProtected(modifiers));
  }

  private static String header(Class<?> type) {
    StringBuilder h = new StringBuilder();
    int m = type.getModifiers() & (type.isInterface()
        ? Modifier.PUBLIC | Modifier.PROTECTED | Modifier.STATIC
        : Modifier.classModifiers());
    h.append(Modifier.toString(m));
    if (type.isSealed()) h.append(" sealed");
    h.append(type.isAnnotation() ? " @interface " : type.isInterface() ? " interface "
        : type.isEnum() ? " enum " : type.isRecord() ? " record " : " class ");
    h.append(type.getName());
    if (type.getTypeParameters().length > 0) {
      h.append(Stream.of(type.getTypeParameters()).map(Object::toString)
          .collect(Collectors.joining(", ", "<", ">")));
    }
    if (!type.isInterface() && !type.isEnum() && !type.isRecord()
        && type.getGenericSuperclass() != null && type.getSuperclass() != Object.class) {
      h.append(" extends ").append(type.getGenericSuperclass().getTypeName());
    }
    if (type.getGenericInterfaces().length > 0) {
      h.append(type.isInterface() ? " extends " : " implements ").append(
          Stream.of(type.getGenericInterfaces()).map(t -> t.getTypeName()).sorted()
              .collect(Collectors.joining(", ")));
    }
    if (type.isSealed()) {
      h.append(" permits ").append(Stream.of(type.getPermittedSubclasses())
          .map(Class::getName).sorted().collect(Collectors.joining(", ")));
    }
    return h.toString();
  }

  /** The library's package dependencies as {@code jdeps} reads them from the class files. */
  static Map<String, Set<String>> packageDependencies(Path classes) {
    ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow(
        () -> new AssertionError("jdeps is part of every JDK this build supports"));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = jdeps.run(new PrintWriter(out), new PrintWriter(err), "-verbose:package",
        "-filter:package", "-include", ROOT.replace(".", "\\.") + "\\..*",
        classes.toString());
    assertThat(code).as("jdeps: %s", err).isZero();
    Map<String, Set<String>> edges = new TreeMap<>();
    for (String line : out.toString().lines().toList()) {
      String[] t = line.trim().split("\\s+");
      if (t.length < 3 || !t[1].equals("->")) continue;
      if (!t[0].startsWith(ROOT) || !t[2].startsWith(ROOT) || t[0].equals(t[2])) continue;
      edges.computeIfAbsent(t[0], k -> new TreeSet<>()).add(t[2]);
    }
    assertThat(edges).as("jdeps read the library's packages").isNotEmpty();
    return edges;
  }

  /** Tarjan's strongly connected components of {@code edges}. */
  static List<List<String>> stronglyConnected(Map<String, Set<String>> edges) {
    Set<String> nodes = new TreeSet<>(edges.keySet());
    edges.values().forEach(nodes::addAll);
    Map<String, Integer> index = new HashMap<>();
    Map<String, Integer> low = new HashMap<>();
    Deque<String> stack = new ArrayDeque<>();
    Set<String> onStack = new TreeSet<>();
    List<List<String>> components = new ArrayList<>();
    int[] next = {0};
    for (String n : nodes) {
      if (!index.containsKey(n)) connect(n, edges, index, low, stack, onStack, components, next);
    }
    return components;
  }

  private static void connect(String v, Map<String, Set<String>> edges,
      Map<String, Integer> index, Map<String, Integer> low, Deque<String> stack,
      Set<String> onStack, List<List<String>> components, int[] next) {
    index.put(v, next[0]);
    low.put(v, next[0]);
    next[0]++;
    stack.push(v);
    onStack.add(v);
    for (String w : edges.getOrDefault(v, Set.of())) {
      if (!index.containsKey(w)) {
        connect(w, edges, index, low, stack, onStack, components, next);
        low.put(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.contains(w)) {
        low.put(v, Math.min(low.get(v), index.get(w)));
      }
    }
    if (low.get(v).equals(index.get(v))) {
      List<String> component = new ArrayList<>();
      String w;
      do {
        w = stack.pop();
        onStack.remove(w);
        component.add(w);
      } while (!w.equals(v));
      components.add(component);
    }
  }

  static Path classesDirectory() throws URISyntaxException {
    return Path.of(LlmClient.class.getProtectionDomain().getCodeSource().getLocation().toURI());
  }
}
