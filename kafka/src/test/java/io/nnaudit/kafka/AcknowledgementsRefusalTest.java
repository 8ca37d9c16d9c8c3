package io.nnaudit.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * What a refusal by the broker leaves for the rewind ({@link Acknowledgements#acknowledge}): a line refused alone
 * names its start (it is sent again cut), a {@code records} record refused names its end (its lines go again
 * alone, uncut), a seal names where it ends; a record that failed otherwise (a timeout) names nothing; the first
 * of each kind is kept.
 */
class AcknowledgementsRefusalTest {
  private static final ShipPosition FILE_3 = new ShipPosition(3, "dev=1,ino=2", 0, 0);

  private static Acknowledgements.Sent sent(Acknowledgements.Generation g, long seq, long from, long to, int lines,
      long sealAt) {
    return new Acknowledgements.Sent(g, seq, ShipPosition.global(3, from), FILE_3.at(to), to - from, lines, false,
        sealAt);
  }

  /**
   * A seal leaves the acknowledged position where it is: whether every record sent is acknowledged is told by
   * seq, so that a stop does not count itself caught up with a seal in flight.
   */
  @Test
  void aSealInFlightIsNotAcknowledgedThoughThePositionIsReached() {
    Acknowledgements acks = new Acknowledgements();
    Acknowledgements.Generation g = new Acknowledgements.Generation(7, FILE_3);
    acks.start(g);
    assertTrue(g.allAcknowledged(7), "nothing sent yet");
    acks.acknowledge(sent(g, 7, 0, 100, 1, -1), null);
    assertTrue(g.allAcknowledged(8));
    // the seal ending at 100 is sent: seq 8, next 9; its range is already acknowledged
    assertEquals(100, g.acknowledged().offset);
    assertFalse(g.allAcknowledged(9), "the seal is in flight");
    acks.acknowledge(sent(g, 8, 100, 100, 0, ShipPosition.global(3, 100)), null);
    assertTrue(g.allAcknowledged(9));
    assertEquals(100, g.acknowledged().offset, "and the position did not move");
  }

  @Test
  void eachRefusalIsKeptByItsKind() {
    Acknowledgements acks = new Acknowledgements();
    Acknowledgements.Generation g = new Acknowledgements.Generation(0, FILE_3);
    acks.start(g);
    RecordTooLargeException tooLarge = new RecordTooLargeException("too large");
    acks.acknowledge(sent(g, 0, 0, 100, 1, -1), null);
    acks.acknowledge(sent(g, 1, 100, 5000, 12, -1), tooLarge); // a records record of 12 lines
    acks.acknowledge(sent(g, 2, 5000, 5200, 1, -1), tooLarge); // a line alone
    acks.acknowledge(sent(g, 3, 5200, 5200, 0, ShipPosition.global(3, 5200)), tooLarge); // a seal
    acks.acknowledge(sent(g, 4, 5200, 9000, 8, -1), tooLarge); // a later records record: the first is kept
    assertEquals(ShipPosition.global(3, 5000), g.refusedTogetherEnd());
    assertEquals(ShipPosition.global(3, 5000), g.refusedRecordAt());
    assertEquals(ShipPosition.global(3, 5200), g.refusedSealAt());
    assertEquals(100, g.acknowledged().offset, "the position stops before the first refused");
    assertNotNull(g.broken());
  }

  @Test
  void aRecordsRecordThatFailedOtherwiseIsNoRefusal() {
    Acknowledgements acks = new Acknowledgements();
    Acknowledgements.Generation g = new Acknowledgements.Generation(0, FILE_3);
    acks.start(g);
    acks.acknowledge(sent(g, 0, 0, 5000, 12, -1), new TimeoutException("expired"));
    assertEquals(-1, g.refusedTogetherEnd());
    assertEquals(-1, g.refusedRecordAt());
    assertEquals(0, g.acknowledged().offset);
    assertNotNull(g.broken());
  }
}
