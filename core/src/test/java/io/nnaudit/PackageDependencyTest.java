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
import io.nnaudit.event.AuditEvent;
import io.nnaudit.config.NnauditConfigKeys;

/**
 * The root package uses event/, format/, sink/, ship/ and config/, and none of them uses the root package: no package
 * cycle. Never the settings either: a sink or a format depends on a value of its own (SinkContext,
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
  void noSubpackageUsesTheRootPackage() throws IOException {
    for (String pkg : new String[] {"event", "format", "sink", "ship", "config"}) {
      assertEquals(Collections.emptySet(), rootClassesUsedBy(pkg), pkg);
    }
  }
}
