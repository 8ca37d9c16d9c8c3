package io.nnaudit.pipeline;

import static io.nnaudit.AuditTestSupport.awaitTrue;
import static io.nnaudit.AuditTestSupport.conf;
import static io.nnaudit.AuditTestSupport.localhost;
import static io.nnaudit.AuditTestSupport.stat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import io.nnaudit.TestFiles;
import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.event.AuditEvent;
import io.nnaudit.format.DropReport;
import io.nnaudit.format.HdfsRecordFormatter;
import io.nnaudit.format.RecordBuffer;
import io.nnaudit.format.RecordFormatter;
import io.nnaudit.settings.NnauditSettings;
import io.nnaudit.sink.file.RollingFileSink;

/**
 * The writer thread survives an Error thrown where no sink or formatter failure handling reaches (here: while
 * it formats a drop report), and goes on writing; the drops stay counted for the next report.
 */
class WriterErrorTest {
  @TempDir
  Path dir;

  /** The stock formatter, except that the first drop record throws an Error, as a StackOverflowError would. */
  private static final class FailingOnceFormatter implements RecordFormatter {
    private final RecordFormatter real;
    final AtomicInteger dropRecordCalls = new AtomicInteger();

    FailingOnceFormatter(RecordFormatter real) {
      this.real = real;
    }

    @Override
    public void appendRecord(RecordBuffer out, AuditEvent e) {
      real.appendRecord(out, e);
    }

    @Override
    public void appendDropRecord(RecordBuffer out, long now, DropReport drops) {
      if (dropRecordCalls.getAndIncrement() == 0) {
        throw new StackOverflowError("injected");
      }
      real.appendDropRecord(out, now, drops);
    }
  }

  private static AuditEvent event(String src) {
    return new AuditEvent(System.currentTimeMillis(), true, "alice", localhost(), "create", src, null, true,
        stat().getOwner(), stat().getGroup(), stat().getPermission(), null, "rpc", null);
  }

  @Test
  void anErrorInTheLoopIsSurvivedAndDropsStayCounted() throws Exception {
    File file = dir.resolve("audit.log").toFile();
    Configuration c = conf(file);
    c.set(NnauditConfigKeys.SINK_KEY, "file");
    NnauditSettings settings = NnauditSettings.fromConf(c);
    Lifecycle life = new Lifecycle();
    AuditMetrics metrics = new AuditMetrics(new int[0]);
    DropTracker drops = new DropTracker(metrics, 1000, LoggerFactory.getLogger(WriterErrorTest.class), "test");
    Refusals refusals = new Refusals(drops, metrics);
    WriterThread writerThread = new WriterThread(life);
    AuditQueue queue = new AuditQueue(settings, life, metrics, drops, refusals, writerThread);
    FailingOnceFormatter formatter = new FailingOnceFormatter(new HdfsRecordFormatter(settings.formatOptions()));
    AuditWriter writer = WriterParts.wire(settings, life, queue, new RollingFileSink(settings.sinkContext()),
        formatter, drops, metrics, false, new ReentrantLock(), writerThread, refusals).writer; // the thread alone
    Thread t = new Thread(writer, "writer-under-test");
    drops.onDrop(System.currentTimeMillis(), "test");
    t.start();
    awaitTrue("the failing drop report", 10_000, () -> formatter.dropRecordCalls.get() >= 1);
    queue.offer(event("/after-the-error"));
    awaitTrue("the next record", 10_000, () -> metrics.written() == 1);
    assertTrue(t.isAlive(), "the writer survived the Error");
    life.closed = true;
    t.join(10_000);
    List<String> records = TestFiles.operationRecords(file);
    assertEquals(1, records.size());
    List<String> dropRecords = TestFiles.dropRecords(file);
    assertEquals(1, dropRecords.size(), "the drop is reported once the formatter works: " + dropRecords);
    assertTrue(dropRecords.get(0).contains("\tcount=1\t"), dropRecords.get(0));
  }
}
