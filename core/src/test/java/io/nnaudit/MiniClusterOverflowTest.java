package io.nnaudit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.pipeline.AuditStats;

/** BLOCK against a slow writer, over real RPC: many clients, ten handlers, a queue of ten, nothing lost. */
class MiniClusterOverflowTest {
  @RegisterExtension
  final LoggerFixture audit = new LoggerFixture();

  @Test
  void blockUnderSaturationWritesOneRecordPerOperation() throws Exception {
    File ours = audit.file("nnaudit.log");
    Configuration conf = audit.clusterConf(ours.getName());
    conf.setInt(DFSConfigKeys.DFS_NAMENODE_HANDLER_COUNT_KEY, 10);
    // Responses sent as soon as events are queued: 32 clients can then outrun a slow writer and fill the queue.
    conf.set(NnauditConfigKeys.ACK_POLICY_KEY, "queue");
    MiniDFSCluster cluster = audit.startCluster(conf);
    QueuedAuditLogger logger = MiniClusterSupport.ourLogger(cluster);
    assertEquals(160, logger.stats().queueCapacity, "the queue is sized from the handler count");
    int clients = 32;
    int each = 40;
    AtomicInteger failures = new AtomicInteger();
    audit.sink().delayWrites(200); // at most 5 writes/s: the queue (160) fills and handlers must wait
    List<Thread> threads = new ArrayList<>();
    for (int c = 0; c < clients; c++) {
      final int id = c;
      Thread t = new Thread(() -> {
        try (FileSystem fs = FileSystem.newInstance(cluster.getURI(), cluster.getConfiguration(0))) {
          for (int i = 0; i < each; i++) {
            fs.mkdirs(new org.apache.hadoop.fs.Path("/load/c" + id + "/d" + i));
          }
        } catch (Exception e) {
          failures.incrementAndGet();
          e.printStackTrace();
        }
      });
      threads.add(t);
      t.start();
    }
    for (Thread t : threads) {
      t.join();
    }
    assertEquals(0, failures.get());
    audit.sink().delayWrites(0);
    cluster.shutdown();
    assertTrue(logger.pipeline().close(30_000));
    AuditStats s = logger.stats();
    assertEquals(0, s.dropped, s.toString());
    assertTrue(s.blockedWaits > 0, "the slow writer made handlers wait: " + s);
    assertEquals(s.accepted, s.written, s.toString());
    long mkdirs = TestFiles.operationRecords(ours).stream()
        .filter(l -> l.contains("\tcmd=mkdirs\tsrc=/load/c")).count();
    assertEquals(clients * each, mkdirs, "one record per mkdirs");
    assertTrue(audit.sink().recordsPerWrite().stream().anyMatch(n -> n > 1), "records were batched");
  }
}
