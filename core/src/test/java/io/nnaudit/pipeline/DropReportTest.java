package io.nnaudit.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import io.nnaudit.format.DropReport;

/** A drop report stays due until its record is written, and the next one covers it: count, span and total. */
class DropReportTest {
  private final AuditMetrics metrics = new AuditMetrics(new int[0]);
  private final DropTracker drops = new DropTracker(metrics, 1000, LoggerFactory.getLogger(DropReportTest.class),
      "test");

  @Test
  void aReportWhoseRecordWasNotWrittenIsCoveredByTheNext() {
    drops.onDrop(100, "queue full");
    drops.onDrop(200, "queue full");
    assertReport(drops.unreported(), 2, 100, 200, 2);
    drops.onDrop(300, "queue full"); // while the first report's record could not be written
    DropReport again = drops.unreported();
    assertReport(again, 3, 100, 300, 3);
    drops.reported(again);
    assertNull(drops.unreported(), "written: nothing is due");
    drops.onDrop(400, "queue full");
    assertReport(drops.unreported(), 1, 400, 400, 4);
  }

  @Test
  void dropsAfterAcceptanceAreCountedInBothTotals() {
    drops.onDrop(100, "queue full");
    drops.onWriterDrops(3, 200, "the audit write failed");
    AuditStats s = metrics.snapshot().build();
    assertEquals(4, s.dropped);
    assertEquals(3, s.droppedAfterAcceptance);
    assertReport(drops.unreported(), 4, 100, 200, 4);
  }

  private static void assertReport(DropReport r, long count, long from, long to, long total) {
    assertEquals(count, r.count, "count");
    assertEquals(from, r.fromMillis, "from");
    assertEquals(to, r.toMillis, "to");
    assertEquals(total, r.total, "total");
  }
}
