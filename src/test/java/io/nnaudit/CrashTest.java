package io.nnaudit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 of a NameNode JVM in the middle of a mutation load, for each durability mode. The client keeps the
 * set of mkdirs that returned success; afterwards every one of them must have its record (sync), or the loss
 * is counted and bounded by what can be queued (none, batch). No power is cut here, so what reached write(2)
 * survives in every mode; the difference between the modes is the queue.
 */
class CrashTest {
  @TempDir
  Path dir;

  private static final int CLIENTS = 8;
  private static final int QUEUE = 16 * 16; // the child's queue: 16 slots for each of its 16 handlers

  @Test
  void syncLosesNoAcknowledgedOperation() throws Exception {
    long lost = crash("sync");
    assertEquals(0, lost, "sync: an acknowledged operation has no record");
  }

  @Test
  void batchLosesAtMostWhatWasQueued() throws Exception {
    long lost = crash("batch");
    assertTrue(lost <= 2 * QUEUE, "batch lost " + lost);
  }

  @Test
  void noneLosesAtMostWhatWasQueued() throws Exception {
    long lost = crash("none");
    assertTrue(lost <= 2 * QUEUE, "none lost " + lost);
  }

  /** Returns the acknowledged operations without a record. */
  private long crash(String durability) throws Exception {
    File audit = dir.resolve("audit-" + durability + ".log").toFile();
    Set<String> acked = ConcurrentHashMap.newKeySet();
    AtomicBoolean stop = new AtomicBoolean();
    try (ChildJvm nn = new ChildJvm(CrashableNameNodeMain.class, dir.resolve("nn-" + durability).toString(),
        audit.getPath(), durability)) {
      String ready = nn.awaitLine("READY port=", 120_000);
      String uri = "hdfs://127.0.0.1:" + ready.substring("READY port=".length()).trim();
      Configuration conf = new HdfsConfiguration();
      conf.setInt("ipc.client.connect.max.retries", 0);
      conf.setInt("ipc.client.connect.max.retries.on.timeouts", 0);
      conf.setBoolean("dfs.client.retry.policy.enabled", false);
      List<Thread> clients = new ArrayList<>();
      for (int c = 0; c < CLIENTS; c++) {
        final int id = c;
        Thread t = new Thread(() -> {
          try (FileSystem fs = FileSystem.newInstance(java.net.URI.create(uri), conf)) {
            for (int i = 0; !stop.get(); i++) {
              String p = "/crash/c" + id + "/d" + i;
              if (fs.mkdirs(new org.apache.hadoop.fs.Path(p))) {
                acked.add(p);
              }
            }
          } catch (Exception expectedAfterKill) {
            // the NameNode is gone
          }
        });
        clients.add(t);
        t.start();
      }
      long deadline = System.currentTimeMillis() + 60_000;
      while (acked.size() < 1500 && System.currentTimeMillis() < deadline) {
        Thread.sleep(5);
      }
      nn.kill(); // SIGKILL mid-load: no shutdown hook runs
      stop.set(true);
      for (Thread t : clients) {
        t.join(60_000);
      }
    }
    assertTrue(acked.size() >= 1500, "the load ran: " + acked.size());
    Set<String> recorded = new HashSet<>();
    String text = new String(Files.readAllBytes(audit.toPath()), StandardCharsets.UTF_8);
    int partial = text.isEmpty() || text.endsWith("\n") ? 0 : 1;
    for (String line : text.split("\n")) {
      int at = line.indexOf("\tcmd=mkdirs\tsrc=");
      if (at >= 0 && line.indexOf('\t', at + 16) > 0) {
        recorded.add(line.substring(at + 16, line.indexOf('\t', at + 16)));
      }
    }
    long lost = acked.stream().filter(p -> !recorded.contains(p)).count();
    ReliabilityResults.record("kill -9 of the NameNode JVM mid-load", durability, acked.size(),
        acked.size() - lost, lost, "CrashTest", partial == 0 ? "" : "file ended in 1 partial record");
    return lost;
  }
}
