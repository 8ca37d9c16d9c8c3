package io.nnaudit;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import io.nnaudit.config.NnauditConfigKeys;

/**
 * A real NameNode process, stopped by a signal while 16 clients call mkdirs. On SIGTERM the JVM runs its
 * shutdown hooks (nnaudit's first drains its queue and hands the file to the handlers, its last closes the file
 * again) while the IPC handlers go on acknowledging calls until the JVM halts, an order
 * {@code MiniDFSCluster.shutdown()} never produces. Each case counts the acknowledged
 * operations that have no record in the audit file: none may be missing under BLOCK, and under DROP every
 * missing one must be reported by an {@code nnaudit=dropped} record. kill -9 runs no hook at all.
 */
class SignalStopTest {
  @TempDir
  Path dir;

  private static final int CLIENTS = 16;
  private static final int ACKED_BEFORE_SIGNAL = 3000;
  private static final String CLOSE_LINE = "nnaudit: the NameNode is stopping; ";

  @Test
  void sigtermWithDefaultsLosesNoAcknowledgedOperation() throws Exception {
    Outcome o = run("sigterm-defaults", Collections.emptyMap(), false);
    o.record("SIGTERM of a NameNode process under load (16 clients)", "none, BLOCK");
    assertEquals(0, o.lost, o.summary());
  }

  @Test
  void sigtermWithSyncDurabilityLosesNoAcknowledgedOperation() throws Exception {
    Outcome o = run("sigterm-sync", Map.of(NnauditConfigKeys.DURABILITY_KEY, "sync"), false);
    o.record("SIGTERM of a NameNode process under load (16 clients)", "sync, BLOCK");
    assertEquals(0, o.lost, o.summary());
  }

  @Test
  void sigtermWithDropReportsEveryLostOperation() throws Exception {
    Outcome o = run("sigterm-drop", Map.of(NnauditConfigKeys.QUEUE_FULL_POLICY_KEY, "DROP"), false);
    o.record("SIGTERM of a NameNode process under load (16 clients)", "none, DROP");
    assertAll(
        () -> assertTrue(o.records.droppedReported >= o.lost, "every acknowledged operation without a record is "
            + "counted by an nnaudit=dropped record: " + o.summary()),
        () -> assertNotNull(o.closeLine, "the NameNode log has the '" + CLOSE_LINE + "' line: " + o.summary()));
  }

  @Test
  void kill9WithDefaultsLosesNoAcknowledgedOperation() throws Exception {
    Outcome o = run("sigkill-defaults", Collections.emptyMap(), true);
    o.record("kill -9 of a NameNode process under load (16 clients)", "none, BLOCK");
    assertEquals(0, o.lost, o.summary());
  }

  /** Starts the NameNode, loads it, signals it while the load goes on, and reads the audit file back. */
  private Outcome run(String name, Map<String, String> extraHdfsSite, boolean kill9) throws Exception {
    Outcome o = new Outcome();
    long t0 = System.nanoTime();
    List<String> output;
    try (RealNameNodeProcess nn = RealNameNodeProcess.start(dir.resolve(name).toFile(), extraHdfsSite)) {
      o.startMs = millisSince(t0);
      MkdirsLoad load = new MkdirsLoad(nn.uri(), CLIENTS, "/signal").start();
      try {
        long t1 = System.nanoTime();
        assertTrue(load.awaitAcked(ACKED_BEFORE_SIGNAL, 60_000), "the load ran: " + load.ackedCount()
            + " acknowledged; clients ended with " + load.endings() + "\n" + String.join("\n", nn.output()));
        o.loadMs = millisSince(t1);
        o.ackedAtSignal = load.ackedCount();
        long t2 = System.nanoTime();
        o.exitStatus = kill9 ? nn.sigkill() : nn.sigterm();
        o.stopMs = millisSince(t2);
      } finally {
        load.stop();
      }
      o.acked = load.ackedCount();
      o.clientEndings = load.endings().size();
      o.records = AuditedMkdirs.read(nn.auditFile());
      o.lost = o.records.missing(load.acked());
      output = nn.output();
    }
    o.totalMs = millisSince(t0);
    o.closeLine = output.stream().filter(l -> l.contains(CLOSE_LINE)).findFirst().orElse(null);
    System.out.println("NAMENODE " + name + ": " + describe(output));
    System.out.println("OUTCOME " + name + ": " + o.summary());
    return o;
  }

  /** nnaudit's lines, warnings and errors up to the signal, then every line from the signal on. */
  private static String describe(List<String> output) {
    int signal = output.size() - 20;
    for (int i = 0; i < output.size(); i++) {
      if (output.get(i).contains("RECEIVED SIGNAL")) {
        signal = i;
        break;
      }
    }
    int from = Math.max(0, signal);
    return "its nnaudit lines, warnings and errors:\n"
        + output.subList(0, from).stream().filter(SignalStopTest::worthShowing).collect(Collectors.joining("\n"))
        + "\n... and its last " + (output.size() - from) + " lines:\n"
        + String.join("\n", output.subList(from, output.size()));
  }

  private static boolean worthShowing(String line) {
    return line.contains("nnaudit") || line.contains(" WARN ") || line.contains(" ERROR ") || line.startsWith("log4j:");
  }

  private static long millisSince(long nanos) {
    return (System.nanoTime() - nanos) / 1_000_000;
  }

  /** What one case measured. */
  private static final class Outcome {
    long startMs;
    long loadMs;
    long stopMs;
    long totalMs;
    int exitStatus;
    int ackedAtSignal;
    int acked;
    int clientEndings;
    long lost;
    AuditedMkdirs records;
    String closeLine;

    String summary() {
      return acked + " acknowledged (" + ackedAtSignal + " when the signal was sent), " + (acked - lost)
          + " with a record, " + lost + " lost; " + records.droppedReported + " reported dropped in "
          + records.dropRecords + " nnaudit=dropped record(s); " + records.paths.size() + " mkdirs records in "
          + records.files + " file(s)" + (records.partialFiles > 0 ? ", " + records.partialFiles
          + " ending in a partial record" : "") + "; exit status " + exitStatus + "; close line "
          + (closeLine == null ? "missing" : "logged") + "; " + clientEndings + " clients ended by an exception"
          + "; start " + startMs + " ms, load " + loadMs + " ms, stop " + stopMs + " ms, total " + totalMs + " ms";
    }

    void record(String fault, String mode) throws Exception {
      ReliabilityResults.record(fault, mode, acked, acked - lost, lost, "SignalStopTest", records.droppedReported
          + " reported dropped; " + ackedAtSignal + " acknowledged before the signal; exit status " + exitStatus);
    }
  }
}
