package io.nnaudit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.seal.SealKeyFixture;
import io.nnaudit.seal.SealKeys;
import io.nnaudit.verify.Problem;
import io.nnaudit.verify.Verification;
import io.nnaudit.verify.VerifyReport;

/**
 * kill -9 of a NameNode JVM in the middle of a mutation load with sealing on. The records written after the
 * last seal are no change: verify reports them as an unsealed tail (exit 2), at most one seal interval and
 * what one write can hold, and never as tampering, and every acknowledged operation has its record. The next
 * start seals them (kind recover) before it writes anything; after a clean stop (SIGTERM) of that NameNode
 * nothing is changed or unsealed, and those records are listed as sealed late, by a later run than the one
 * that wrote them (exit 2), which an auditor may accept ({@code --accept-late}: exit 0, still listed).
 */
class SealedCrashTest {
  /** The signing key of the NameNode's trail. */
  @RegisterExtension
  static final SealKeyFixture ec = new SealKeyFixture();

  @TempDir
  Path dir;

  private static final int CLIENTS = 8;
  private static final int INTERVAL = 200;
  /** The child's queue: 16 slots for each of its 16 handlers; one write holds at most what was queued. */
  private static final int QUEUE = 16 * 16;

  @Test
  void aKilledNameNodesTailIsUnsealedNotTamperedAndTheNextStartSealsIt() throws Exception {
    Configuration sealing = SealKeys.enable(new Configuration(false), ec);
    sealing.setInt(NnauditConfigKeys.SEAL_INTERVAL_RECORDS_KEY, INTERVAL);
    List<String> settings = new ArrayList<>();
    for (Map.Entry<String, String> e : sealing) {
      settings.add(e.getKey() + "=" + e.getValue());
    }
    File audit = dir.resolve("audit").resolve("audit.log").toFile();

    // The first NameNode, killed under load.
    Set<String> acked;
    try (ChildJvm nn = nameNode("nn-killed", audit, settings)) {
      MkdirsLoad load = new MkdirsLoad(uri(nn), CLIENTS, "/sealed-crash").start();
      try {
        assertTrue(load.awaitAcked(1500, 60_000), "the load ran: " + load.ackedCount() + "; " + load.endings());
        nn.kill(); // SIGKILL mid-load: no shutdown hook, no closing seal
      } finally {
        load.stop();
      }
      acked = load.acked();
    }
    AuditedMkdirs records = AuditedMkdirs.read(audit);
    assertEquals(0, records.missing(acked), "every acknowledged mkdirs has its record");
    long lines = completeLines(audit);
    assertTrue(lines >= acked.size(), lines + " records for " + acked.size() + " acknowledged operations");

    Verification.Run killed = Verification.withCert(ec, audit.getPath());
    System.out.println("VERIFY after kill -9 (exit " + killed.code + "):\n" + killed.output);
    assertEquals(VerifyReport.UNSEALED, killed.code, killed.output);
    assertFalse(killed.output.contains("TAMPERED"), killed.output);
    assertTrue(killed.output.contains("UNSEALED: " + audit.getAbsolutePath() + " at byte "), killed.output);
    VerifyReport report = Verification.report(ec.checkingKey(), audit.toPath());
    assertNull(report.tampering(), killed.output);
    assertEquals(1, report.unsealed().size(), killed.output);
    Problem tail = report.unsealed().get(0);
    assertEquals(Problem.Kind.UNSEALED_TAIL, tail.kind, killed.output);
    assertTrue(tail.records > 0, "records after the last seal: " + killed.output);
    assertTrue(tail.records < INTERVAL + QUEUE, "at most an interval and one write unsealed: " + killed.output);
    assertTrue(killed.output.contains(": unsealed tail: " + tail.records + (tail.records == 1 ? " record" : " records")
        + " after the last seal"),
        killed.output);
    assertEquals(lines, report.records() + tail.records, "every complete record is sealed or in the tail");

    // The next NameNode on the same audit file: it seals the tail at start-up; some work, then a clean stop.
    Set<String> later = new HashSet<>();
    try (ChildJvm nn = nameNode("nn-restarted", audit, settings)) {
      try (FileSystem fs = FileSystem.newInstance(uri(nn), MkdirsLoad.failFastClientConf())) {
        for (int i = 0; i < 50; i++) {
          String p = "/after-restart/d" + i;
          if (fs.mkdirs(new org.apache.hadoop.fs.Path(p))) {
            later.add(p);
          }
        }
      }
      nn.process.toHandle().destroy(); // SIGTERM, as the NameNode is stopped: the shutdown hook runs
      nn.awaitExit(120_000);
    }
    assertEquals(50, later.size());
    AuditedMkdirs all = AuditedMkdirs.read(audit);
    assertEquals(0, all.missing(acked));
    assertEquals(0, all.missing(later), "the restarted NameNode's acknowledged mkdirs have records");

    Verification.Run restarted = Verification.withCert(ec, audit.getPath());
    System.out.println("VERIFY after the restart and SIGTERM (exit " + restarted.code + "):\n" + restarted.output);
    assertEquals(VerifyReport.UNSEALED, restarted.code, restarted.output);
    long total = completeLines(audit);
    long sealedLate = tail.records + records.partialFiles; // a cut last line is ended, and sealed, at the start
    assertTrue(restarted.output.startsWith("verified, with records sealed late: 1 file, " + total + " records, "
        + "from "), restarted.output);
    assertTrue(restarted.output.contains("(" + sealedLate + " of them sealed late, by a later start than the run "
        + "that wrote them)"), restarted.output);
    assertTrue(restarted.output.contains("SEALED LATE: " + audit.getAbsolutePath() + " at byte " + tail.offset
        + " "), restarted.output);
    assertTrue(restarted.output.contains(sealedLate + " records sealed at the start at "), restarted.output);
    assertFalse(restarted.output.contains("UNSEALED"), restarted.output);
    Verification.Run accepted = Verification.withCert(ec, "--accept-late", audit.getPath());
    assertEquals(VerifyReport.VERIFIED, accepted.code, accepted.output);
    assertTrue(accepted.output.startsWith("verified: 1 file, " + total + " records, from "), accepted.output);
    assertTrue(accepted.output.contains("SEALED LATE (accepted): "), accepted.output);
  }

  private ChildJvm nameNode(String name, File audit, List<String> settings) throws Exception {
    List<String> args = new ArrayList<>(List.of(dir.resolve(name).toString(), audit.getPath(), "none", "write"));
    args.addAll(settings);
    return new ChildJvm(CrashableNameNodeMain.class, args.toArray(new String[0]));
  }

  private static URI uri(ChildJvm nn) throws InterruptedException {
    String ready = nn.awaitLine("READY port=", 120_000);
    return URI.create("hdfs://127.0.0.1:" + ready.substring("READY port=".length()).trim());
  }

  private static long completeLines(File f) throws Exception {
    byte[] b = Files.readAllBytes(f.toPath());
    long n = 0;
    for (byte x : b) {
      if (x == '\n') {
        n++;
      }
    }
    return n;
  }
}
