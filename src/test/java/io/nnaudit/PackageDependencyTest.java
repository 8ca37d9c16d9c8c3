package io.nnaudit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Collections;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The root package uses format/, sink/ and config/; they use of the root package only what they cannot do
 * without: the formatters' input (AuditEvent) and the key names (NnauditConfigKeys, constants inlined by the
 * compiler). Never the settings: a sink or a format depends on a value of its own (SinkContext,
 * FormatOptions).
 */
class PackageDependencyTest {
  private static final Pattern ROOT_IMPORT = Pattern.compile("(?m)^import (?:static )?io\\.nnaudit\\.([A-Z]\\w*)");

  /** Root-package classes imported by the sources of {@code pkg}; fails on any mention of the settings. */
  private static Set<String> rootClassesUsedBy(String pkg) throws IOException {
    Set<String> used = new TreeSet<>();
    try (Stream<Path> files = Files.list(Paths.get("src/main/java/io/nnaudit", pkg))) {
      for (Path f : (Iterable<Path>) files::iterator) {
        String text = new String(Files.readAllBytes(f), StandardCharsets.UTF_8);
        assertFalse(text.contains("NnauditSettings"), f + " speaks of NnauditSettings");
        Matcher m = ROOT_IMPORT.matcher(text);
        while (m.find()) {
          used.add(m.group(1));
        }
      }
    }
    return used;
  }

  @Test
  void formatAndSinkUseOnlyTheEventAndTheKeysOfTheRootPackage() throws IOException {
    assertEquals(Collections.singleton("AuditEvent"), rootClassesUsedBy("format"));
    assertEquals(Collections.singleton("NnauditConfigKeys"), rootClassesUsedBy("sink"));
    assertEquals(Collections.emptySet(), rootClassesUsedBy("config"));
  }
}
