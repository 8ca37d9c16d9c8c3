package io.nnaudit.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.settings.NnauditSettings;
import io.nnaudit.ship.SpoolGuard;
import io.nnaudit.sink.file.RollingFileSink;

/**
 * The shipper's files while the sink rotates and compresses what the shipper has finished: a shipper that takes
 * the files in the order it lists them, holding each it is in, reads them in the order they were written, never
 * one twice and never a compressed one (a {@code .gz} is a new inode: it would look like a file not yet read,
 * older than the one the shipper is in).
 */
class SpoolCompressionTest {
  private static final Pattern FIRST = Pattern.compile("record (\\d{4}) ");

  @TempDir
  Path dir;

  @Test
  void aShipperNeverListsACompressedFileAsNew() throws Exception {
    Path live = dir.resolve("audit.log");
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.FILE_PATH_KEY, live.toString());
    c.set(NnauditConfigKeys.FILE_MAX_SIZE_KEY, "1k");
    c.setInt(NnauditConfigKeys.FILE_MAX_BACKUPS_KEY, 30);
    c.set(NnauditConfigKeys.FILE_COMPRESS_KEY, "gzip");
    SpoolGuard guard = new SpoolGuard(40);
    RollingFileSink sink = new RollingFileSink(NnauditSettings.fromConf(c).sinkContext().withSpoolGuard(guard));
    SpoolDirectory spool = new SpoolDirectory(live, 40, guard);
    AtomicBoolean stop = new AtomicBoolean();
    AtomicReference<String> wrong = new AtomicReference<>();
    Set<String> finished = new HashSet<>();
    AtomicInteger shippedFiles = new AtomicInteger();
    Thread shipper = new Thread(() -> {
      try {
        long lastFirst = -1;
        while (!stop.get() && wrong.get() == null) {
          List<SpoolFile> files = spool.list();
          Set<String> listed = new HashSet<>();
          for (SpoolFile f : files) {
            listed.add(f.key);
          }
          finished.retainAll(listed); // a file gone (compressed, expired) frees its inode for a new file
          int current = 0;
          while (current < files.size() - 1 && finished.contains(files.get(current).key)) {
            current++;
          }
          SpoolFile in = files.get(current);
          if (!in.live) { // read it to its end, then on to the next: its records come after those shipped
            String text = new String(Files.readAllBytes(in.path), StandardCharsets.UTF_8);
            Matcher m = FIRST.matcher(text);
            if (!m.lookingAt() || Long.parseLong(m.group(1)) <= lastFirst) {
              wrong.set(in.path + " is not the next file to ship: it begins "
                  + text.substring(0, Math.min(20, text.length())) + " after a file that began with record "
                  + lastFirst);
            } else {
              lastFirst = Long.parseLong(m.group(1));
            }
            finished.add(in.key);
            shippedFiles.incrementAndGet();
            guard.holdFrom(files.get(current + 1).key, 0);
          } else {
            guard.holdFrom(in.key, 0);
          }
          Thread.sleep(2);
        }
      } catch (Exception e) {
        wrong.compareAndSet(null, e.toString());
      }
    }, "test-shipper");
    try {
      shipper.start();
      for (int n = 0; n < 300 && wrong.get() == null; n++) {
        String line = String.format("record %04d %s%n", n, String.join("", java.util.Collections.nCopies(1088, "x")));
        sink.write(ByteBuffer.wrap(line.getBytes(StandardCharsets.UTF_8)));
        Thread.sleep(1);
      }
    } finally {
      stop.set(true);
      shipper.join(30_000);
      sink.close();
    }
    assertNull(wrong.get());
    assertTrue(shippedFiles.get() > 100, shippedFiles + " files shipped");
    assertFalse(shipper.isAlive());
    assertTrue(sink.filesCompressed() > 0, "the files the shipper finished were compressed meanwhile");
    assertEquals(0, guard.lostFiles());
  }
}
