package io.nnaudit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.net.URI;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.settings.NnauditSettings;
import io.nnaudit.sink.file.RollingFileSink;

/**
 * {@code nnaudit.ack.policy=journal} through the death of the process. A NameNode in a child JVM serves a mkdirs
 * load and is killed with SIGKILL, or stopped with SIGTERM; then a start on the same audit file (the file sink a
 * restarted NameNode opens) settles the journal. Every mkdirs the clients saw succeed must then have its record,
 * and no record may be there twice. A child that acknowledges records it never writes (its sink holds every
 * write) shows that the records come from the journal and nowhere else.
 */
class JournalCrashTest {
  @TempDir
  Path dir;

  private static final int CLIENTS = 8;

  @Test
  void aKilledNameNodesAcknowledgedOperationsAreAllWrittenOnceByTheNextStart() throws Exception {
    File audit = dir.resolve("audit.log").toFile();
    Set<String> acked = serveThenStop(audit, true);
    AuditedMkdirs before = AuditedMkdirs.read(audit);
    long missingBefore = before.missing(acked);
    restart(audit);
    AuditedMkdirs after = AuditedMkdirs.read(audit);
    long lost = after.missing(acked);
    ReliabilityResults.record("kill -9 of the NameNode JVM mid-load, then a start", "none, ack.policy=journal",
        acked.size(), acked.size() - lost, lost, "JournalCrashTest",
        missingBefore + " acknowledged records were only in the journal at the kill");
    assertEquals(0, lost, "acknowledged operations without a record after the start");
    assertEachOnce(audit);
  }

  @Test
  void aNameNodeStoppedBySigtermLeavesNothingToWriteAgain() throws Exception {
    File audit = dir.resolve("audit.log").toFile();
    Set<String> acked = serveThenStop(audit, false);
    assertEquals(0, AuditedMkdirs.read(audit).missing(acked), "the stop wrote every acknowledged record");
    long size = audit.length();
    restart(audit);
    assertEquals(size, audit.length(), "the start after a clean stop wrote nothing from the journal");
    assertEachOnce(audit);
  }

  @Test
  void recordsAcknowledgedOnlyIntoTheJournalAreWrittenByTheNextStart() throws Exception {
    File audit = dir.resolve("gated.log").toFile();
    int n = 3000;
    try (ChildJvm child = new ChildJvm(JournalWriterMain.class, audit.getPath(), Integer.toString(n))) {
      String line = child.awaitLine("LOGGED ", 120_000);
      assertTrue(line.endsWith(" written=0"), line);
      child.kill();
    }
    assertEquals(0, TestFiles.operationRecords(audit).size(), "every write was held: the records were only in "
        + "the journal");
    restart(audit, JournalWriterMain.conf(audit));
    List<String> records = TestFiles.operationRecords(audit);
    assertEquals(n, records.size());
    for (int i = 0; i < n; i++) {
      assertTrue(records.get(i).contains("\tsrc=/j/" + i + "\t"), i + ": " + records.get(i));
    }
    restart(audit, JournalWriterMain.conf(audit));
    assertEquals(n, TestFiles.operationRecords(audit).size(), "a second start writes nothing again");
  }

  /** Serves a mkdirs load under ack policy journal, then kills the NameNode (or sends SIGTERM). */
  private Set<String> serveThenStop(File audit, boolean kill) throws Exception {
    try (ChildJvm nn = new ChildJvm(CrashableNameNodeMain.class, dir.resolve("nn").toString(), audit.getPath(),
        "none", "journal")) {
      String ready = nn.awaitLine("READY port=", 120_000);
      URI uri = URI.create("hdfs://127.0.0.1:" + ready.substring("READY port=".length()).trim());
      MkdirsLoad load = new MkdirsLoad(uri, CLIENTS, "/journal").start();
      try {
        load.awaitAcked(3000, 60_000);
        if (kill) {
          nn.kill();
        } else {
          nn.process.destroy(); // SIGTERM: the shutdown hooks run
          assertTrue(nn.process.waitFor(120, TimeUnit.SECONDS), "the NameNode stopped");
        }
      } finally {
        load.stop();
      }
      Set<String> acked = load.acked();
      assertTrue(acked.size() >= 3000, "the load ran: " + acked.size());
      return acked;
    }
  }

  private static void restart(File audit) throws Exception {
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.FILE_PATH_KEY, audit.getPath());
    c.set(NnauditConfigKeys.ACK_POLICY_KEY, "journal");
    restart(audit, c);
  }

  /** What a restarted NameNode's logger does first: opens the file sink, which settles the journal. */
  private static void restart(File audit, Configuration c) throws Exception {
    new RollingFileSink(NnauditSettings.fromConf(c).sinkContext()).close();
  }

  private static void assertEachOnce(File audit) throws Exception {
    Map<String, Integer> seen = new HashMap<>();
    for (String r : TestFiles.operationRecords(audit)) {
      if (!r.contains("\tcmd=mkdirs\t")) {
        continue; // other calls (a client's lookups) may repeat a path; each mkdirs of the load is of a new one
      }
      int at = r.indexOf("\tsrc=");
      seen.merge(r.substring(at, r.indexOf('\t', at + 1)), 1, Integer::sum);
    }
    seen.forEach((src, n) -> assertEquals(1, n.intValue(), src + " is there " + n + " times"));
  }
}
