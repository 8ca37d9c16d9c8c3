package io.nnaudit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The architecture as a test: every package of the core and of nnaudit-kafka is named here with the packages it
 * may import, the imports of its sources stay within them, and the allowed graph has no cycle. A new package
 * fails until it is placed. Only the logger, the settings and the pipeline speak of {@code NnauditSettings}: a
 * sink, a seal or a format depends on a value of its own (SinkContext, SealSettings, FormatOptions).
 */
class PackageDependencyTest {
  /** package (relative to io.nnaudit; "" for the root) -> the packages it may import. */
  private static final Map<String, Set<String>> ALLOWED = new LinkedHashMap<>();

  static {
    allow("", "ack", "config", "event", "format", "pipeline", "settings", "sink", "throttle");
    allow("settings", "ack", "config", "format", "journal", "seal", "ship", "sink");
    allow("pipeline", "ack", "config", "event", "format", "journal", "seal", "settings", "ship", "sink", "sink.file",
        "throttle");
    allow("ack");
    allow("event", "ack");
    allow("format", "event");
    allow("journal", "event", "format");
    allow("config");
    allow("sink", "config", "journal", "seal", "ship", "trail");
    allow("sink.file", "config", "journal", "seal", "ship", "sink", "throttle", "trail");
    allow("trail");
    allow("seal", "config", "throttle", "trail");
    allow("verify", "seal", "trail");
    allow("ship", "config", "trail");
    allow("kafka", "config", "seal", "ship", "throttle", "trail");
    allow("kafka.verify", "kafka", "seal", "trail", "verify");
    allow("throttle");
    allow("shaded.net.jpountz.util"); // nnaudit-kafka's stand-in for lz4-java's native loader
  }

  private static final Set<String> MAY_NAME_THE_SETTINGS = new HashSet<>(Arrays.asList("", "settings", "pipeline"));

  private static final Pattern IMPORT =
      Pattern.compile("(?m)^import (?:static )?io\\.nnaudit((?:\\.[a-z]\\w*)*)\\.[A-Z]");

  private static void allow(String pkg, String... deps) {
    ALLOWED.put(pkg, new TreeSet<>(Arrays.asList(deps)));
  }

  /** The source roots: the core's, and nnaudit-kafka's beside it in the reactor. */
  private static List<Path> roots() {
    List<Path> roots = new ArrayList<>();
    roots.add(Paths.get("src/main/java/io/nnaudit"));
    Path kafka = Paths.get("../kafka/src/main/java/io/nnaudit");
    if (Files.isDirectory(kafka)) {
      roots.add(kafka);
    }
    return roots;
  }

  /** package -> the io.nnaudit packages its sources import (other than itself). */
  private static Map<String, Set<String>> actual() throws IOException {
    Map<String, Set<String>> deps = new TreeMap<>();
    for (Path root : roots()) {
      try (Stream<Path> files = Files.walk(root)) {
        for (Path f : files.filter(p -> p.toString().endsWith(".java")).collect(Collectors.toList())) {
          String pkg = root.relativize(f.getParent()).toString().replace('/', '.');
          Set<String> used = deps.computeIfAbsent(pkg, k -> new TreeSet<>());
          String text = new String(Files.readAllBytes(f), StandardCharsets.UTF_8);
          if (!MAY_NAME_THE_SETTINGS.contains(pkg)) {
            assertFalse(text.contains("NnauditSettings"), f + " speaks of NnauditSettings");
          }
          Matcher m = IMPORT.matcher(text);
          while (m.find()) {
            String dep = m.group(1).isEmpty() ? "" : m.group(1).substring(1);
            if (!dep.equals(pkg)) {
              used.add(dep);
            }
          }
        }
      }
    }
    return deps;
  }

  @Test
  void everyPackageIsNamedAndImportsOnlyWhatItMay() throws IOException {
    Map<String, Set<String>> actual = actual();
    assertEquals(new TreeSet<>(ALLOWED.keySet()), actual.keySet(), "packages named here against packages in the tree");
    for (Map.Entry<String, Set<String>> e : actual.entrySet()) {
      Set<String> extra = new TreeSet<>(e.getValue());
      extra.removeAll(ALLOWED.get(e.getKey()));
      assertEquals(new TreeSet<String>(), extra, "io.nnaudit." + e.getKey() + " imports packages it may not");
    }
  }

  @Test
  void theAllowedGraphHasNoCycle() {
    Set<String> done = new HashSet<>();
    for (String pkg : ALLOWED.keySet()) {
      visit(pkg, new ArrayList<>(), done);
    }
    assertEquals(ALLOWED.keySet(), done);
  }

  private static void visit(String pkg, List<String> path, Set<String> done) {
    assertFalse(path.contains(pkg), () -> "package cycle: " + path + " -> " + pkg);
    if (done.contains(pkg)) {
      return;
    }
    assertTrue(ALLOWED.containsKey(pkg), () -> "unknown package " + pkg + " after " + path);
    path.add(pkg);
    for (String dep : ALLOWED.get(pkg)) {
      visit(dep, path, done);
    }
    path.remove(path.size() - 1);
    done.add(pkg);
  }
}
