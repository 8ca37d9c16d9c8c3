package io.nnaudit;

import static io.nnaudit.AuditTestSupport.awaitTrue;
import static io.nnaudit.AuditTestSupport.logCreate;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.pipeline.AuditStats;
import io.nnaudit.settings.NnauditSettings;
import io.nnaudit.sink.file.RollingFileSink;

/**
 * {@code nnaudit.ack.policy=journal} in a running pipeline, with the real file sink: records are acknowledged
 * once journaled and written by the writer; a record the journal cannot take waits for its write; a refusing
 * disk stops journaling until a write succeeds, and nothing is lost or written twice.
 */
class JournalPipelineTest {
  @RegisterExtension
  final LoggerFixture audit = new LoggerFixture(c -> {
    c.set(NnauditConfigKeys.ACK_POLICY_KEY, "journal");
    c.setLong(NnauditConfigKeys.FAILURE_RETRY_INTERVAL_MS_KEY, 20);
  });

  @Test
  void recordsAreAcknowledgedFromTheJournalAndWrittenOnce() throws Exception {
    QueuedAuditLogger l = audit.start(c -> c.setInt(NnauditConfigKeys.QUEUE_CAPACITY_KEY, 1000));
    audit.sink().stall(); // nothing is written: each call returns all the same, its record journaled
    for (int i = 0; i < 200; i++) {
      logCreate(l, "/r" + i);
    }
    AuditStats s = l.stats();
    assertEquals(200, s.journaled, s.toString());
    assertEquals(0, s.journalWaits, s.toString());
    audit.sink().resume();
    assertTrue(l.pipeline().awaitWritten(30_000));
    List<String> records = TestFiles.operationRecords(audit.file());
    assertEquals(200, records.size());
    for (int i = 0; i < 200; i++) {
      assertTrue(records.get(i).contains("\tsrc=/r" + i + "\t"), records.get(i));
    }
  }

  @Test
  void aRefusingDiskStopsJournalingUntilAWriteSucceeds() throws Exception {
    QueuedAuditLogger l = audit.start();
    audit.sink().failNextWrites(Integer.MAX_VALUE);
    logCreate(l, "/journaled"); // acknowledged at once: journaled before the disk refused
    awaitTrue("the refused write", 10_000, () -> l.stats().sinkErrors > 0);
    Thread handler = new Thread(() -> logCreate(l, "/waits"));
    handler.start();
    Thread.sleep(200); // proves a negative: it does not return while the disk refuses
    assertTrue(handler.isAlive(), "a record after the refusal waits for its write");
    audit.sink().failNextWrites(0);
    handler.join(30_000);
    assertFalse(handler.isAlive());
    assertTrue(l.pipeline().awaitWritten(30_000));
    AuditStats s = l.stats();
    assertEquals(1, s.journaled, s.toString());
    assertEquals(1, s.journalWaits, s.toString());
    List<String> records = TestFiles.operationRecords(audit.file());
    assertEquals(2, records.size(), records.toString());
    assertTrue(records.get(0).contains("src=/journaled\t") && records.get(1).contains("src=/waits\t"), records.toString());
    logCreate(l, "/again");
    assertEquals(2, l.stats().journaled, "journaling resumed once a write succeeded");
  }

  @Test
  void aChunkGivenUpUnderFailOpenIsNotWrittenAgainByTheNextStart() throws Exception {
    QueuedAuditLogger l = audit.start(c -> c.set(NnauditConfigKeys.FAILURE_POLICY_KEY, "fail-open"));
    audit.sink().failNextWrites(1);
    logCreate(l, "/given-up");
    assertTrue(l.pipeline().awaitWritten(30_000));
    assertEquals(1, l.stats().dropped, l.stats().toString());
    // A start now, as after a kill: the mark passed the dropped record, so it is not written after all.
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.FILE_PATH_KEY, audit.file().getPath());
    c.set(NnauditConfigKeys.ACK_POLICY_KEY, "journal");
    new RollingFileSink(NnauditSettings.fromConf(c).sinkContext()).close();
    assertEquals(0, TestFiles.operationRecords(audit.file()).size(), "dropped, counted, and not written later");
  }

  @Test
  void aRecordTooLargeForTheRingWaitsForItsWrite() throws Exception {
    QueuedAuditLogger l = audit.start(c -> c.set(NnauditConfigKeys.JOURNAL_SIZE_KEY, "256k"));
    StringBuilder path = new StringBuilder("/big");
    while (path.length() < 70_000) {
      path.append("/segment-of-a-long-path");
    }
    logCreate(l, path.toString()); // a quarter of the ring is 64 KiB: the journal does not take it
    AuditStats s = l.stats();
    assertEquals(0, s.journaled, s.toString());
    assertEquals(1, s.journalWaits, s.toString());
    assertTrue(l.pipeline().awaitWritten(30_000));
    assertEquals(1, TestFiles.operationRecords(audit.file()).size());
  }
}
