package io.nnaudit;

import static io.nnaudit.AuditTestSupport.awaitTrue;
import static io.nnaudit.AuditTestSupport.logCreate;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.pipeline.AuditStats;

/** A really full disk: the audit file lives on a small tmpfs that the test fills and then frees. */
class DiskFullTest {
  @TempDir
  Path dir;

  private TmpfsMount mountOrSkip() throws Exception {
    TmpfsMount m = TmpfsMount.mount(dir.resolve("small-disk").toFile(), "256k");
    assumeTrue(m != null, "cannot mount a tmpfs here (needs root); write errors are still covered by "
        + "SinkFailureTest through the sink");
    return m;
  }

  @Test
  void failOpenDropsWhileFullCountsExactlyAndResumesByItself() throws Exception {
    try (TmpfsMount disk = mountOrSkip()) {
      File audit = new File(disk.dir, "audit.log");
      Configuration c = new Configuration(false);
      c.set(NnauditConfigKeys.FILE_PATH_KEY, audit.getPath());
      c.set(NnauditConfigKeys.FAILURE_POLICY_KEY, "fail-open");
      QueuedAuditLogger l = AuditTestSupport.logger(c);
      try {
        for (int i = 0; i < 20; i++) {
          logCreate(l, "/before-full/" + i);
        }
        assertTrue(l.pipeline().awaitWritten(30_000));
        disk.fill();
        int whileFull = 300;
        for (int i = 0; i < whileFull; i++) {
          logCreate(l, "/while-full/" + i);
        }
        assertTrue(l.pipeline().awaitWritten(30_000));
        AuditStats full = l.stats();
        assertTrue(full.sinkErrors > 0, "the disk refused writes: " + full);
        assertTrue(full.dropped > 0, full.toString());
        disk.free();
        for (int i = 0; i < 20; i++) {
          logCreate(l, "/after-free/" + i);
        }
        assertTrue(l.pipeline().awaitWritten(30_000));
        TestFiles.awaitDropRecord(audit);
      } finally {
        l.pipeline().close(10_000);
      }
      AuditStats s = l.stats();
      List<String> records = TestFiles.operationRecords(audit); // fails on half a record
      int calls = 20 + 300 + 20;
      assertEquals(calls, records.size() + s.dropped, "every call is a record or a counted drop: " + s);
      assertEquals(20, records.stream().filter(r -> r.contains("src=/after-free/")).count(), "writing resumed");
      long reported = 0;
      Matcher m = Pattern.compile("\tcount=(\\d+)\t").matcher(String.join("\n", TestFiles.dropRecords(audit)));
      while (m.find()) {
        reported += Long.parseLong(m.group(1));
      }
      assertEquals(s.dropped, reported, "the drop records add up to the drop counter");
      ReliabilityResults.record("disk full, then freed", "fail-open", calls, records.size(), s.dropped,
          "DiskFullTest", "all " + s.dropped + " losses counted and reported in nnaudit=dropped records");
    }
  }

  @Test
  void failClosedStopsAcknowledgingUntilSpaceIsFreedAndLosesNothing() throws Exception {
    try (TmpfsMount disk = mountOrSkip()) {
      File audit = new File(disk.dir, "audit.log");
      Configuration conf = MiniClusterSupport.conf(dir.toFile(), audit, QueuedAuditLogger.class.getName());
      conf.setInt(DFSConfigKeys.DFS_NAMENODE_HANDLER_COUNT_KEY, 10);
      conf.setLong(NnauditConfigKeys.FAILURE_RETRY_INTERVAL_MS_KEY, 50);
      MiniDFSCluster cluster = MiniClusterSupport.start(conf);
      QueuedAuditLogger logger = MiniClusterSupport.ourLogger(cluster);
      AtomicInteger acked = new AtomicInteger();
      int[] stalledAfter = new int[1];
      int ops = 400;
      Thread client;
      try {
        FileSystem fs = cluster.getFileSystem();
        fs.mkdirs(new org.apache.hadoop.fs.Path("/warm-up"));
        assertTrue(logger.pipeline().awaitWritten(30_000));
        disk.fill();
        client = new Thread(() -> {
          try {
            for (int i = 0; i < ops; i++) {
              fs.mkdirs(new org.apache.hadoop.fs.Path("/full/" + i));
              acked.incrementAndGet();
            }
          } catch (Exception e) {
            throw new AssertionError(e);
          }
        });
        client.start();
        awaitTrue("the disk to refuse", 30_000, () -> logger.stats().sinkErrors > 0);
        // Under the default ack policy the refused write holds the response back at once.
        int stalledAt = acked.get();
        Thread.sleep(500); // proves a negative: no operation is acknowledged in this time
        assertEquals(stalledAt, acked.get(), "no operation is acknowledged while audit cannot write");
        assertTrue(client.isAlive());
        stalledAfter[0] = stalledAt;
        disk.free();
        client.join(60_000);
        assertFalse(client.isAlive());
        assertEquals(ops, acked.get());
      } finally {
        cluster.shutdown();
        logger.pipeline().close(30_000);
      }
      long mkdirs = TestFiles.operationRecords(audit).stream().filter(r -> r.contains("\tcmd=mkdirs\tsrc=/full/"))
          .count();
      assertEquals(ops, mkdirs, "every operation has its record");
      assertEquals(0, logger.stats().dropped);
      ReliabilityResults.record("disk full, then freed", "fail-closed", ops, mkdirs, ops - mkdirs, "DiskFullTest",
          "acknowledgements stopped after " + stalledAfter[0] + " ops (what the full disk still took) "
              + "until space was freed");
    }
  }
}
