package io.nnaudit.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.StandardOpenOption;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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
 * The shipper's files while the sink rotates and compresses what the shipper has finished: a shipper that holds
 * the file it is in by its key (as its checkpoint does) and goes on to the next one its listing shows reads them in
 * the order they were written, never one twice and never a compressed one (a {@code .gz} is a new inode: it would look like a file not yet read,
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
    AtomicInteger shippedFiles = new AtomicInteger();
    Thread shipper = new Thread(() -> {
      try {
        long lastFirst = -1;
        String holding = null; // the key of the file it is in, as the shipper's checkpoint names it
        while (!stop.get() && wrong.get() == null) {
          List<SpoolFile> files = spool.list();
          int current = 0;
          if (holding != null) {
            current = -1;
            for (int i = 0; i < files.size(); i++) {
              if (files.get(i).key.equals(holding)) {
                current = i;
              }
            }
            if (current < 0) {
              wrong.set("the file the shipper holds (" + holding + ") is not listed: " + files);
              break;
            }
          }
          SpoolFile in = files.get(current);
          if (!in.live) { // read it to its end, then on to the next: its records come after those shipped
            byte[] bytes;
            try (FileChannel ch = FileChannel.open(in.path, StandardOpenOption.READ)) {
              if (!in.key.equals(io.nnaudit.trail.Lstat.key(in.path))) {
                continue; // a rotation moved it up since the listing: looked for again, by its key
              }
              bytes = new byte[(int) ch.size()];
              ByteBuffer b = ByteBuffer.wrap(bytes);
              while (b.hasRemaining() && ch.read(b) > 0) {
                continue;
              }
            }
            String text = new String(bytes, StandardCharsets.UTF_8);
            Matcher m = FIRST.matcher(text);
            if (!m.lookingAt() || Long.parseLong(m.group(1)) <= lastFirst) {
              wrong.set(in.path + " is not the next file to ship: it begins "
                  + text.substring(0, Math.min(20, text.length())) + " after a file that began with record "
                  + lastFirst);
            } else {
              lastFirst = Long.parseLong(m.group(1));
            }
            shippedFiles.incrementAndGet();
            holding = files.get(current + 1).key;
          } else {
            holding = in.key;
          }
          guard.holdFrom(holding, 0);
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
