package io.nnaudit;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** Reading audit files back in tests, and removing what a fixture made. */
public final class TestFiles {
  private TestFiles() {
  }

  /** The lines of a file (UTF-8), without their newlines; empty when the file does not exist. */
  public static List<String> lines(File f) throws IOException {
    if (!f.exists()) {
      return new ArrayList<>();
    }
    String all = new String(Files.readAllBytes(f.toPath()), StandardCharsets.UTF_8);
    List<String> out = new ArrayList<>();
    int start = 0;
    for (int i = 0; i < all.length(); i++) {
      if (all.charAt(i) == '\n') {
        out.add(all.substring(start, i));
        start = i + 1;
      }
    }
    if (start != all.length()) {
      throw new AssertionError("file " + f + " ends with a partial record: " + all.substring(start));
    }
    return out;
  }

  /** Lines that are operation records (not nnaudit drop reports). */
  public static List<String> operationRecords(File f) throws IOException {
    List<String> out = new ArrayList<>();
    for (String l : lines(f)) {
      if (l.contains("FSNamesystem.audit: allowed=") || l.startsWith("allowed=")) {
        out.add(l);
      }
    }
    return out;
  }

  /** Waits (up to 10 s) until the file holds a drop record; the writer reports drops as soon as it runs. */
  public static void awaitDropRecord(File f) throws InterruptedException {
    AuditTestSupport.awaitTrue("a nnaudit=dropped record in " + f, 10_000, () -> {
      try {
        return !dropRecords(f).isEmpty();
      } catch (IOException e) {
        throw new AssertionError(e);
      }
    });
  }

  public static List<String> dropRecords(File f) throws IOException {
    List<String> out = new ArrayList<>();
    for (String l : lines(f)) {
      if (l.contains("nnaudit=dropped")) {
        out.add(l);
      }
    }
    return out;
  }

  /** How many file descriptors of this JVM are open on {@code f} (read from /proc/self/fd). */
  public static long openHandles(File f) throws IOException {
    File[] fds = new File("/proc/self/fd").listFiles();
    long n = 0;
    for (File fd : fds == null ? new File[0] : fds) {
      try {
        if (fd.toPath().toRealPath().equals(f.toPath().toRealPath())) {
          n++;
        }
      } catch (IOException gone) {
        // an fd closed while we looked
      }
    }
    return n;
  }

  /** Deletes {@code dir} and everything under it; nothing when it does not exist. */
  public static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) all.sorted(Comparator.reverseOrder())::iterator) {
        Files.delete(p);
      }
    }
  }
}
