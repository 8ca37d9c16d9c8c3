package io.nnaudit.seal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.AuditTestSupport;
import io.nnaudit.TestFiles;
import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.settings.NnauditSettings;
import io.nnaudit.sink.file.RollingFileSink;
import io.nnaudit.trail.TrailNames;
import io.nnaudit.verify.Problem;
import io.nnaudit.verify.Verification;
import io.nnaudit.verify.VerifyReport;

/**
 * An interrupt of the writing thread (a handler, as {@code Server.stop()} interrupts them) in the middle of a
 * sealed write closes the audit file's channel under it (ClosedByInterruptException). The write fails; the next
 * ones, on a thread no longer interrupted, reopen the file and must work again, seals included, under
 * fail-closed (the default), and the trail must verify. The seals themselves are written, and the file fsynced
 * before them, by the sealing thread through channels of its own, which no handler's interrupt closes.
 */
class SealInterruptTest {
  private static final int INTERVAL = 5;

  @RegisterExtension
  static final SealKeyFixture ec = new SealKeyFixture();

  @TempDir
  Path dir;

  private RollingFileSink sink;
  private Path live;
  private int next;

  private void open(String durability) throws Exception {
    open(durability, null);
  }

  /** A sealed sink; {@code maxSize} null: the default (no rotation in these tests). */
  private void open(String durability, String maxSize) throws Exception {
    live = dir.resolve("audit.log");
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.FILE_PATH_KEY, live.toString());
    c.set(NnauditConfigKeys.DURABILITY_KEY, durability);
    c.setInt(NnauditConfigKeys.SEAL_INTERVAL_RECORDS_KEY, INTERVAL);
    c.setLong(NnauditConfigKeys.SEAL_INTERVAL_MS_KEY, 86_400_000L);
    SealKeys.enable(c, ec, dir);
    if (maxSize != null) {
      c.set(NnauditConfigKeys.FILE_MAX_SIZE_KEY, maxSize);
      c.setInt(NnauditConfigKeys.FILE_MAX_BACKUPS_KEY, 1000);
    }
    sink = new RollingFileSink(NnauditSettings.fromConf(c).sinkContext());
  }

  private void write(int records) throws Exception {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < records; i++) {
      b.append(String.format("allowed=true\tcmd=mkdirs\tsrc=/interrupt/%06d\tproto=rpc%n", next + i));
    }
    sink.write(ByteBuffer.wrap(b.toString().getBytes(StandardCharsets.UTF_8)));
    next += records;
  }

  /** A write on an interrupted thread: it fails with the channel closed under it; the flag is then cleared. */
  private void interruptedWrite() {
    Thread.currentThread().interrupt();
    try {
      assertThrows(ClosedByInterruptException.class, () -> write(2));
    } finally {
      Thread.interrupted();
    }
  }

  /** The writes after the interrupt work and are sealed; the trail verifies with every record written. */
  private void writesGoOnAndTheTrailVerifies(long failedSeals) throws Exception {
    long seals = sink.sealsWritten();
    for (int i = 0; i < 6; i++) {
      write(2);
    }
    AuditTestSupport.awaitTrue("seals due every " + INTERVAL + " records were written", 10_000,
        () -> sink.sealsWritten() >= seals + 2);
    assertEquals(failedSeals, sink.sealFailures());
    sink.close();
    VerifyReport r = Verification.report(ec.checkingKey(), live);
    assertEquals(VerifyReport.VERIFIED, r.exitCode(), String.join("\n", r.lines()));
    assertEquals(next, r.records(), String.join("\n", r.lines()));
    assertEquals(next, TestFiles.lines(live.toFile()).size(), "no record lost or written twice");
    assertFalse(Thread.currentThread().isInterrupted());
  }

  @Test
  void anInterruptWhileSealsAreDueLeavesTheSealingThreadsChannelsOpen() throws Exception {
    open("none");
    write(4);
    write(2); // 6 unsealed: the sealing thread seals them
    interruptedWrite();
    writesGoOnAndTheTrailVerifies(0);
  }

  @Test
  void anInterruptUnderFsyncsLeavesTheSealersFsyncWorking() throws Exception {
    open("batch");
    write(4);
    write(2);
    interruptedWrite(); // the sink's channel is closed; the sealer fsyncs through its own
    writesGoOnAndTheTrailVerifies(0);
  }

  @Test
  void anInterruptInTheWriteOfRecordsClosesTheFileWhichTheSealerFollows() throws Exception {
    open("batch");
    write(2); // no seal due before the next write
    interruptedWrite(); // the chunk's write is interrupted: the file's channel is closed, the chunk undone
    writesGoOnAndTheTrailVerifies(0);
  }

  /**
   * Interrupts from elsewhere of the sealing thread itself, every millisecond through writes, seals, rotations
   * (each new file's digest opened, its first seal) and the close: a step of a seal that one of them cuts short
   * (the channel closed under it) is taken again at once, with the line that may have reached the digest cut
   * back first, so that every seal is in the digest once, in order, every file is begun by its rotation's seal
   * and the close is sealed.
   */
  @Test
  void aStormOfInterruptsOfTheSealingThreadLeavesEverySealOnceAndTheCloseSealed() throws Exception {
    open("batch", "4k"); // an fsync of the file before each seal and of the digest after; a rotation every 4 KB
    Thread sealing = null;
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().equals("nnaudit-sealer " + live.getFileName())) {
        sealing = t;
      }
    }
    assertNotNull(sealing, "the sealing thread");
    Thread target = sealing;
    AtomicBoolean storming = new AtomicBoolean(true);
    AtomicLong interrupts = new AtomicLong();
    Thread storm = new Thread(() -> {
      while (storming.get()) {
        target.interrupt();
        interrupts.incrementAndGet();
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
      }
    }, "interrupt storm");
    storm.start();
    try {
      for (int i = 0; i < 150; i++) {
        write(3); // a seal due every other write
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
      }
      AuditTestSupport.awaitTrue("the seals due", 10_000, () -> sink.sealsWritten() >= 75);
      sink.close();
    } finally {
      storming.set(false);
      storm.join();
    }
    assertTrue(interrupts.get() > 150, interrupts + " interrupts");
    assertEquals(0, sink.sealFailures(), "no seal failed for good");
    VerifyReport r = Verification.report(ec.checkingKey(), live);
    assertEquals(VerifyReport.VERIFIED, r.exitCode(), String.join("\n", r.lines()));
    assertEquals(next, r.records(), String.join("\n", r.lines()));
    assertTrue(r.files() > 5, r.files() + " files: rotations under the storm");
    long sealLines = 0;
    try (java.util.stream.Stream<Path> files = Files.list(dir)) {
      for (Path p : (Iterable<Path>) files::iterator) {
        if (p.getFileName().toString().startsWith("audit.log") && p.getFileName().toString().contains(".seals")) {
          sealLines += TestFiles.lines(p.toFile()).size();
        }
      }
    }
    assertEquals(sink.sealsWritten(), sealLines, "every seal written once");
  }

  @Test
  void aRecordSomeoneElseAppendsWhileTheFileIsClosedToTheSinkIsNotSealedAsItsOwn() throws Exception {
    for (String durability : new String[] {"none", "batch"}) {
      open(durability);
      write(6);
      interruptedWrite(); // the channel is closed, the chunk taken back out of the file
      Files.write(live, "allowed=true\tugi=x\tcmd=delete\tsrc=/FORGED\tproto=rpc\n".getBytes(StandardCharsets.UTF_8),
          java.nio.file.StandardOpenOption.APPEND);
      write(4); // reopens the file: what it holds beyond what the sink left is recorded as found
      sink.close();
      VerifyReport r = Verification.report(ec.checkingKey(), live);
      assertEquals(VerifyReport.TAMPERED, r.exitCode(), durability + ": " + r.lines());
      assertEquals(Problem.Kind.RECORDS_INSERTED, r.tampering().kind, durability + ": " + r.lines());
      assertEquals(1, r.tampering().records, durability + ": " + r.lines());
      Files.delete(live);
      Files.delete(TrailNames.digest(live));
      next = 0;
    }
  }
}
