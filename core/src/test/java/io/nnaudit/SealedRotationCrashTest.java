package io.nnaudit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.alias.CredentialProviderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.seal.SealKeyFixture;
import io.nnaudit.seal.SealKeys;
import io.nnaudit.settings.NnauditSettings;
import io.nnaudit.sink.file.RollingFileSink;
import io.nnaudit.trail.TrailNames;
import io.nnaudit.verify.Problem;
import io.nnaudit.verify.Verification;
import io.nnaudit.verify.VerifyReport;

/**
 * kill -9 of a process whose sealing file sink rotates every few writes (files of 1 KB, durability batch, so
 * that each rotation's fsyncs widen the time a kill can stop it in), at a random moment, several times. Each
 * time: verify finds no change in what the kill left (an unsealed tail, a rotation stopped half-way, a new file
 * not yet sealed: none is tampering); a sink started on the files finishes what the kill interrupted, and then
 * the trail verifies (the killed run's tail listed as sealed late, and accepted as such), with no file left under
 * a temporary name and every record there once, in order.
 */
class SealedRotationCrashTest {
  private static final int RUNS = 6;
  private static final Pattern RECORD = Pattern.compile("record (\\d{9})");

  /** The signing key of the writer's trail. */
  @RegisterExtension
  static final SealKeyFixture ec = new SealKeyFixture();

  @TempDir
  Path dir;

  @Test
  void aKillAtAnyMomentOfARotatingSealedSinkLeavesATrailThatVerifies() throws Exception {
    String provider = SealKeys.enable(new Configuration(false), ec)
        .get(CredentialProviderFactory.CREDENTIAL_PROVIDER_PATH);
    Random random = new Random();
    for (int run = 0; run < RUNS; run++) {
      File audit = dir.resolve("run-" + run).resolve("audit.log").toFile();
      String[] args = {audit.getPath(), ec.keystore.toString(), provider, "batch"};
      try (ChildJvm writer = new ChildJvm(SealedSinkWriterMain.class, args)) {
        writer.awaitLine("READY", 60_000);
        Path oldest = TrailNames.backup(audit.toPath(), 5);
        AuditTestSupport.awaitTrue("the writer to rotate past the backups kept", 60_000, 5,
            () -> Files.exists(oldest));
        Thread.sleep(random.nextInt(500)); // then a random moment of the writing: the kill is the fault
        writer.kill();
      }
      String killedFiles = Arrays.toString(audit.getParentFile().list());
      VerifyReport killed = Verification.report(ec.checkingKey(), audit.toPath());
      String what = "run " + run + ", killed with " + killedFiles + ":\n" + String.join("\n", killed.lines());
      System.out.println(what);
      assertNotEquals(VerifyReport.TAMPERED, killed.exitCode(), what);

      new RollingFileSink(NnauditSettings.fromConf(SealedSinkWriterMain.conf(args)).sinkContext()).close();
      VerifyReport restarted = Verification.report(ec.checkingKey(), audit.toPath());
      String after = String.join("\n", restarted.lines()) + "\n" + Arrays.toString(audit.getParentFile().list());
      // nothing changed, nothing unsealed; a killed run's tail was sealed by the start: listed, and accepted
      assertNull(restarted.tampering(), what + "\nafter a start:\n" + after);
      assertTrue(restarted.unsealed().isEmpty(), what + "\nafter a start:\n" + after);
      assertTrue(restarted.late().stream().allMatch(p -> p.kind == Problem.Kind.SEALED_LATE), after);
      VerifyReport accepted = Verification.report(ec.checkingKey(), audit.toPath(), true);
      assertEquals(VerifyReport.VERIFIED, accepted.exitCode(), what + "\nafter a start, accepted:\n" + after);
      for (String name : audit.getParentFile().list()) {
        assertFalse(name.contains(".rotating-") || name.contains(".expired-"), after);
      }
      List<Long> numbers = recordNumbers(audit.toPath());
      for (int i = 1; i < numbers.size(); i++) {
        assertEquals(numbers.get(i - 1) + 1, (long) numbers.get(i), "records in order, none missing or twice: "
            + after);
      }
    }
  }

  /** The record numbers of the trail's files, oldest file first; a last line cut by the kill is passed over. */
  private static List<Long> recordNumbers(Path live) throws Exception {
    List<Long> out = new ArrayList<>();
    for (int i = 10; i >= 0; i--) {
      Path f = i == 0 ? live : TrailNames.backup(live, i);
      if (!Files.exists(f)) {
        continue;
      }
      List<String> lines = Files.readAllLines(f);
      for (int k = 0; k < lines.size(); k++) {
        Matcher m = RECORD.matcher(lines.get(k));
        if (m.matches()) {
          out.add(Long.parseLong(m.group(1)));
        } else {
          assertTrue(i == 0 && k == lines.size() - 1, "only the live file's last line may be cut short: "
              + lines.get(k) + " in " + f);
        }
      }
    }
    return out;
  }
}
