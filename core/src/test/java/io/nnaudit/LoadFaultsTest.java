package io.nnaudit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.pipeline.AuditStats;

/** Faults under heavy load: a NameNode stopped while clients write, and rotation after rotation. */
class LoadFaultsTest {
  @TempDir
  Path dir;

  @RegisterExtension
  final MiniClusterFixture nameNodes = new MiniClusterFixture();

  @RegisterExtension
  final LoggerFixture loggers = new LoggerFixture();

  @Test
  void stoppingTheNameNodeUnderLoadLeavesEveryAcceptedEventOnDisk() throws Exception {
    File audit = dir.resolve("stop.log").toFile();
    Configuration conf = MiniClusterSupport.conf(dir.toFile(), audit, QueuedAuditLogger.class.getName());
    conf.setLong(NnauditConfigKeys.SHUTDOWN_TIMEOUT_MS_KEY, 10_000);
    MiniDFSCluster cluster = nameNodes.start(conf);
    QueuedAuditLogger logger = MiniClusterSupport.ourLogger(cluster);
    MkdirsLoad load = new MkdirsLoad(cluster.getURI(), 16, "/stop").start();
    boolean loaded = load.awaitAcked(2000, 60_000);
    cluster.shutdown(); // clients are still writing
    long start = System.nanoTime();
    boolean drained = logger.pipeline().close(10_000);
    long drainMs = (System.nanoTime() - start) / 1_000_000;
    load.stop();
    Set<String> acked = load.acked();
    assertTrue(loaded, "the load ran: " + acked.size());
    assertTrue(drained, "the drain finished within nnaudit.shutdown.timeout.ms");
    AuditStats s = logger.stats();
    List<String> records = TestFiles.operationRecords(audit);
    assertEquals(s.accepted, s.written, s.toString());
    assertEquals(s.accepted, records.size(), "every accepted event is in the file");
    long lost = AuditedMkdirs.read(audit).missing(acked);
    assertEquals(0, lost, "every acknowledged mkdirs has its record");
    ReliabilityResults.record("NameNode stopped under load (16 clients)", "none, BLOCK", acked.size(),
        acked.size() - lost, lost, "LoadFaultsTest", "drain took " + drainMs + " ms of a 10000 ms budget; "
            + s.accepted + " accepted, " + s.written + " written");
  }

  @Test
  void heavyLoadAcrossManyRotationsLosesNoRecord() throws Exception {
    File audit = dir.resolve("rot/audit.log").toFile();
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.FILE_PATH_KEY, audit.getPath());
    c.set(NnauditConfigKeys.FILE_MAX_SIZE_KEY, "64k");
    c.setInt(NnauditConfigKeys.FILE_MAX_BACKUPS_KEY, 10_000);
    c.setInt(NnauditConfigKeys.QUEUE_CAPACITY_KEY, 64);
    QueuedAuditLogger l = loggers.startWithNamedSink(c);
    int threads = 8;
    int each = 5000;
    List<Thread> ts = AuditTestSupport.startLogging(l, "/rot/", threads, each);
    for (Thread th : ts) {
      th.join();
    }
    assertTrue(l.pipeline().close(30_000));
    File[] files = audit.getParentFile().listFiles();
    assertTrue(files != null && files.length > 50, "many rotations: " + (files == null ? 0 : files.length));
    Set<String> srcs = new HashSet<>();
    long records = 0;
    for (File f : files) {
      assertEquals("rw-r-----", PosixFilePermissions.toString(Files.getPosixFilePermissions(f.toPath())), f.getName());
      for (String r : TestFiles.operationRecords(f)) { // fails on a split record
        records++;
        int at = r.indexOf("\tsrc=");
        srcs.add(r.substring(at + 5, r.indexOf('\t', at + 5)));
      }
    }
    assertEquals(threads * each, records, "records across all " + files.length + " files");
    assertEquals(threads * each, srcs.size(), "each event exactly once");
    ReliabilityResults.record("rotation under load (" + files.length + " files of 64 KiB)", "none, BLOCK",
        threads * each, records, threads * each - records, "LoadFaultsTest", "8 threads x 5000 events");
  }
}
