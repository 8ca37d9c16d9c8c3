package io.nnaudit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.seal.SealKeys;
import io.nnaudit.seal.VerifyCommand;
import io.nnaudit.seal.VerifyReport;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real NameNode process sealing its audit file (files of 64 KB, so that it rotates under the load), stopped
 * with SIGTERM while 16 clients call mkdirs: the shutdown hook seals what the writer wrote, and then each
 * handler seals the record it writes itself, until the JVM halts. verify finds no change in what the stop
 * left (at most a tail a halted handler wrote and could not seal), every acknowledged mkdirs has its record,
 * and after the next start and a stop without load the whole trail verifies.
 */
class SealedSignalStopTest {
  @TempDir
  Path dir;

  @Test
  void sigtermUnderLoadLeavesATrailWithNoChangeAndTheNextStopOneThatVerifies() throws Exception {
    Path keyDir = dir.resolve("keys");
    SealKeys.KeyFiles ec = SealKeys.ec(keyDir);
    Configuration sealing = SealKeys.enable(new Configuration(false), ec, keyDir);
    sealing.setInt(NnauditConfigKeys.SEAL_INTERVAL_RECORDS_KEY, 200);
    sealing.set(NnauditConfigKeys.FILE_MAX_SIZE_KEY, "64k");
    sealing.setInt(NnauditConfigKeys.FILE_MAX_BACKUPS_KEY, 1000); // keep every file: each acknowledged record is looked for
    Map<String, String> site = new HashMap<>();
    for (Map.Entry<String, String> e : sealing) {
      site.put(e.getKey(), e.getValue());
    }

    File audit;
    Set<String> acked;
    int status;
    try (RealNameNodeProcess nn = RealNameNodeProcess.start(dir.resolve("nn").toFile(), site)) {
      audit = nn.auditFile();
      MkdirsLoad load = new MkdirsLoad(nn.uri(), 16, "/sealed-signal").start();
      try {
        assertTrue(load.awaitAcked(3000, 120_000), "the load ran: " + load.ackedCount() + "; " + load.endings());
        status = nn.sigterm();
      } finally {
        load.stop();
      }
      acked = load.acked();
    }
    AuditedMkdirs records = AuditedMkdirs.read(audit);
    assertEquals(0, records.missing(acked), "every acknowledged mkdirs has its record; exit status " + status);
    assertTrue(records.files > 1, "the file rotated under the load: " + records.files + " files");
    Verified stopped = verify(ec, audit);
    System.out.println("VERIFY after SIGTERM under load (exit " + stopped.code + "):\n" + stopped.output);
    assertNotEquals(VerifyReport.TAMPERED, stopped.code, stopped.output);

    try (RealNameNodeProcess nn = RealNameNodeProcess.start(dir.resolve("nn").toFile(), site)) {
      nn.sigterm();
    }
    Verified restarted = verify(ec, audit);
    System.out.println("VERIFY after a start and a stop (exit " + restarted.code + "):\n" + restarted.output);
    assertEquals(VerifyReport.VERIFIED, restarted.code, restarted.output);
    assertEquals(0, AuditedMkdirs.read(audit).missing(acked));
  }

  private static final class Verified {
    final int code;
    final String output;

    Verified(int code, String output) {
      this.code = code;
      this.output = output;
    }
  }

  private static Verified verify(SealKeys.KeyFiles key, File audit) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrintStream p = new PrintStream(out, true);
    int code = VerifyCommand.run(new String[] {"verify", "--cert", key.certificate.toString(),
        audit.getParent()}, p, p, null);
    return new Verified(code, out.toString(StandardCharsets.UTF_8));
  }
}
