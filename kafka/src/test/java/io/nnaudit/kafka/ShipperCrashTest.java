package io.nnaudit.kafka;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.nnaudit.MkdirsLoad;

/**
 * kill -9 of a shipping NameNode JVM under load, and a restart on the same directories. The NameNode runs in a
 * child JVM ({@link ShippingNameNodeMain}), ships to a real broker, rotates every 16 KiB and keeps every file. It is
 * killed while client threads call mkdirs and the shipper has records not yet acknowledged; it comes back on the
 * same name directory, audit file and checkpoint, takes more load, and ships until caught up. Then, read back from
 * the topic the way a consumer is told to ({@link TrailCheck}):
 * <ul>
 * <li>every line of every local audit file, rotated ones included, is there once, in order, with no hole;</li>
 * <li>the only duplicates are identical records under identical identities: exactly the records the first start
 * sent at or after the position its checkpoint held at the kill, each sent again by the second start;</li>
 * <li>the second start began at that checkpoint position, at or before where the first left off.</li>
 * </ul>
 * That the kill came mid-shipping is checked, not assumed: at the kill the checkpoint on disk is behind the end of
 * the local files (the restart had records to resend or to ship), and the last report of the child showed a lag.
 *
 * <p>Run twice: with the rotated files kept plain, and compressed ({@code nnaudit.file.compress=gzip}) as the
 * shipper finishes them, so that the kill may also come mid-compression and the restart cleans what it left;
 * compressed files are read back gunzipped, and some must have been compressed while the restart shipped.
 */
class ShipperCrashTest {
  private static final String TOPIC = "audit";
  private static final int CLIENTS = 6;
  /** Operations acknowledged before the kill: many rotations of 16 KiB files (about 90 mkdirs records each). */
  private static final int BEFORE_KILL = 3000;
  /** Records the first start must have shipped before the kill: it is killed well into shipping, not at its start. */
  private static final long SHIPPED_BEFORE_KILL = 1500;
  private static final int AFTER_RESTART = 1500;
  /** Generous bounds for a loaded 2-core machine; each is a limit on a condition wait, not a sleep. */
  private static final long START_TIMEOUT_MS = 180_000;
  private static final long LOAD_TIMEOUT_MS = 180_000;
  private static final long SHIPPED_TIMEOUT_MS = 180_000;

  @TempDir
  Path dir;

  @RegisterExtension
  final ShippingClusterExtension kafka = new ShippingClusterExtension(() -> dir);

  @ParameterizedTest(name = "nnaudit.file.compress={0}")
  @ValueSource(strings = {"none", "gzip"})
  void aKillMidShippingLosesNoLineAndResendsOnlyIdenticalRecords(String compress) throws Exception {
    KafkaTestBroker broker = kafka.broker();
    broker.createTopic(TOPIC, 3);
    File audits = kafka.audits();
    File live = new File(audits, "audit.log");
    File checkpointFile = new File(live.getPath() + ".kafka-checkpoint");

    String statsAtKill;
    try (ShippingNameNodeProcess nn = start(broker, audits, true, compress)) {
      MkdirsLoad load = new MkdirsLoad(nn.uri(), CLIENTS, "/first").start();
      try {
        assertTrue(load.awaitAcked(BEFORE_KILL, LOAD_TIMEOUT_MS), "the first load ran: " + load.ackedCount()
            + " acknowledged, clients ended with " + load.endings());
        statsAtKill = nn.awaitStats(s -> s.get("shipped") >= SHIPPED_BEFORE_KILL && s.get("lagBytes") > 0,
            SHIPPED_TIMEOUT_MS);
        nn.kill(); // SIGKILL mid-load, while records wait: no shutdown hook, no last checkpoint
      } finally {
        load.stop();
      }
    }
    KillPoint kill = KillPoint.read(live, checkpointFile);
    assertTrue(kill.checkpointLines < kill.lines, "the kill came while records were unacknowledged: the "
        + "checkpoint covers " + kill.checkpointLines + " of the " + kill.lines + " lines on disk");

    TrailCheck trail;
    List<ShippedRecord> shipped;
    int secondAcked;
    long compressedWhileShipping;
    try (ShippingNameNodeProcess nn = start(broker, audits, false, compress)) {
      MkdirsLoad load = new MkdirsLoad(nn.uri(), CLIENTS, "/second").start();
      try {
        assertTrue(load.awaitAcked(AFTER_RESTART, LOAD_TIMEOUT_MS), "the second load ran: " + load.ackedCount()
            + " acknowledged, clients ended with " + load.endings());
      } finally {
        load.stop();
      }
      secondAcked = load.ackedCount();
      nn.awaitStats(s -> s.get("lagBytes") == 0 && s.get("filesWaiting") == 0, SHIPPED_TIMEOUT_MS);
      compressedWhileShipping = TrailCheck.compressedFiles(live);
      shipped = awaitEveryLocalLine(broker, live);
      trail = TrailCheck.of(shipped, ShippingNameNodeMain.SOURCE);
    }

    if (compress.equals("gzip")) {
      assertTrue(compressedWhileShipping > 0, "rotated files were compressed while the restart shipped");
    } else {
      assertEquals(0, compressedWhileShipping, "nothing compressed");
    }
    List<String> local = TrailCheck.localLines(live);
    assertTrue(local.size() >= kill.lines + secondAcked, "the restarted NameNode audited its " + secondAcked
        + " acknowledged mkdirs: " + local.size() + " lines, " + kill.lines + " at the kill");
    assertEquals(local, trail.lines, "every local line, in order, once, and nothing else");
    assertEquals(0, trail.gaps, "no gap announced");
    assertEquals(2, trail.epochs.size(), "two starts: " + trail.epochs);
    int files = TrailCheck.localFiles(live).size();
    assertTrue(files >= 20, "the test rotated many times: " + files + " files");
    assertEquals(files - 1, trail.fileEnds, "a file-end for every file but the live one");

    long first = trail.epochs.get(0);
    long second = trail.epochs.get(1);
    long firstEnd = -1;
    long secondStart = Long.MAX_VALUE;
    Map<String, ShippedRecord> resentBySecond = new HashMap<>();
    for (ShippedRecord r : shipped) {
      if (r.epoch == first) {
        firstEnd = Math.max(firstEnd, end(r));
      } else if (r.epoch == second) {
        secondStart = Math.min(secondStart, position(r));
        resentBySecond.putIfAbsent(r.identity(), r);
      }
    }
    long firstLines = 0;
    int resent = 0;
    for (ShippedRecord r : shipped) {
      if (r.epoch != first) {
        continue;
      }
      if (ShipHeaders.RECORD.equals(r.type)) {
        firstLines++;
      }
      if (position(r) >= kill.checkpoint) {
        ShippedRecord again = resentBySecond.get(r.identity());
        assertNotNull(again, "the restart sent again what the first start sent past its checkpoint: " + r);
        assertArrayEquals(r.value, again.value, "the same record under the same identity: " + r);
        resent++;
      }
    }
    assertEquals(kill.checkpoint, secondStart, "the second start began at the checkpoint the kill left");
    assertTrue(secondStart <= firstEnd, "the second start began at or before where the first left off ("
        + describe(secondStart) + ", " + describe(firstEnd) + "): no hole");
    assertEquals(resent, trail.duplicates, "the only duplicates are what the first start sent past its "
        + "checkpoint");

    System.out.println("ShipperCrashTest (compress " + compress + "): " + local.size() + " local lines in " + files
        + " files (" + compressedWhileShipping + " compressed as the restart caught up); "
        + shipped.size() + " records in the topic (" + trail.lines.size() + " lines, " + trail.fileEnds
        + " file ends, " + trail.duplicates + " duplicates); at the kill: " + kill.lines + " lines on disk, "
        + firstLines + " sent by the first start, " + kill.checkpointLines + " under its checkpoint ("
        + describe(kill.checkpoint) + "), so " + (kill.lines - kill.checkpointLines) + " unacknowledged, "
        + Math.max(0, kill.lines - firstLines) + " never sent before the kill; last report before the kill: "
        + statsAtKill);
  }

  private static ShippingNameNodeProcess start(KafkaTestBroker broker, File audits, boolean format,
      String compress) throws Exception {
    return ShippingNameNodeProcess.start(audits.getParentFile(), audits, broker.bootstrapServers(), TOPIC, format,
        compress, START_TIMEOUT_MS);
  }

  /**
   * Reads the topic until the trail holds as many lines as the local files (the shipper's lag report can be a
   * moment old), within {@link #SHIPPED_TIMEOUT_MS}; returns every record read.
   */
  private static List<ShippedRecord> awaitEveryLocalLine(KafkaTestBroker broker, File live) throws Exception {
    long deadline = System.currentTimeMillis() + SHIPPED_TIMEOUT_MS;
    while (true) {
      int want = TrailCheck.localLines(live).size();
      List<ShippedRecord> all = ShippedRecord.of(broker.readAll(TOPIC, want, Duration.ofSeconds(20)));
      int have = TrailCheck.of(all, ShippingNameNodeMain.SOURCE).lines.size();
      if (have >= want || System.currentTimeMillis() > deadline) {
        return all;
      }
      Thread.sleep(200); // the poll interval of this bounded wait
    }
  }

  /** Where a record starts in the trail: its file and offset, as one ordered number. */
  private static long position(ShippedRecord r) {
    return ShipPosition.global(r.file, r.offset);
  }

  /** Where the next record starts after {@code r}. */
  private static long end(ShippedRecord r) {
    switch (r.type) {
      case ShipHeaders.FILE_END:
        return ShipPosition.global(r.file + 1, 0);
      case ShipHeaders.RECORD:
        return ShipPosition.global(r.file, r.offset + r.value.length + 1);
      default:
        return position(r);
    }
  }

  private static String describe(long global) {
    long file = global >>> 40;
    return "file " + file + " byte " + (global - ShipPosition.global(file, 0));
  }

  /** The local files and the checkpoint as the kill left them. */
  private static final class KillPoint {
    /** Lines in the local files (a last partial line counts: the restart ends it). */
    final long lines;
    /** The checkpoint's position, as {@link ShipPosition#global}. */
    final long checkpoint;
    /** Lines before the checkpoint's position. */
    final long checkpointLines;

    private KillPoint(long lines, long checkpoint, long checkpointLines) {
      this.lines = lines;
      this.checkpoint = checkpoint;
      this.checkpointLines = checkpointLines;
    }

    /**
     * Reads the checkpoint and counts the lines before it. The first start found no checkpoint and numbered the
     * oldest file 0, so file {@code N} is the Nth local file; its device and inode must match the checkpoint's.
     */
    static KillPoint read(File live, File checkpointFile) throws IOException {
      assertTrue(checkpointFile.exists(), "the first start wrote a checkpoint before the kill");
      Properties p = new Properties();
      p.load(new StringReader(new String(Files.readAllBytes(checkpointFile.toPath()), StandardCharsets.UTF_8)));
      int seq = Integer.parseInt(p.getProperty("file.seq"));
      long offset = Long.parseLong(p.getProperty("offset"));
      List<File> files = TrailCheck.localFiles(live);
      assertTrue(seq < files.size(), "the checkpoint's file " + seq + " is among the " + files.size() + " files");
      assertEquals(p.getProperty("file.key"), fileKey(files.get(seq)), "file " + seq + " is the checkpoint's");
      long lines = 0;
      long before = 0;
      for (int i = 0; i < files.size(); i++) {
        byte[] b = TrailCheck.localBytes(files.get(i));
        long n = countLines(b, b.length) + (b.length > 0 && b[b.length - 1] != '\n' ? 1 : 0);
        lines += n;
        if (i < seq) {
          before += n;
        } else if (i == seq) {
          before += countLines(b, (int) offset);
        }
      }
      return new KillPoint(lines, ShipPosition.global(seq, offset), before);
    }

    private static long countLines(byte[] b, int upTo) {
      long n = 0;
      for (int i = 0; i < upTo; i++) {
        if (b[i] == '\n') {
          n++;
        }
      }
      return n;
    }

    private static String fileKey(File f) throws IOException {
      return String.valueOf(Files.readAttributes(f.toPath(), BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
          .fileKey());
    }
  }
}
