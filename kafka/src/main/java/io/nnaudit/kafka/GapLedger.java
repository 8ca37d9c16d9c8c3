package io.nnaudit.kafka;

import java.io.File;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gap records the shipper owes the stream, oldest first: each says what was lost and where, reaches Kafka
 * before the records after it, and is kept, in the checkpoint too, until Kafka has acknowledged it, so that no
 * loss goes unannounced through an outage or a restart.
 *
 * <p>Design note. Nothing blocks. Only the first gap is in flight at a time; the records wait behind it. Who owns
 * what: the queue, the changed flag and the seq in flight are the shipper's thread's (checked by {@code assert}
 * in {@link #note}, {@link #sendFirst} and {@link #settle}); {@link #waiting} (volatile) and
 * {@link #lostElsewhere} (atomic) are written by it and read by the metrics. A noted gap is written to the
 * checkpoint at once, through the {@code written} hook the shipper wires to its {@link Checkpointer}. Logs as
 * {@link KafkaShipper}, the shipper's one logger name.
 */
final class GapLedger {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaShipper.class);

  private final Thread owner;
  private final File file;
  private final Runnable written;
  /** Gap records to send, oldest first: where each is announced and what it says. */
  private final ArrayDeque<ShipCheckpoint.PendingGap> pending = new ArrayDeque<>();
  private volatile int waiting;
  /** The pending gaps changed since the last checkpoint was written. */
  private boolean changed;
  /** The seq the first pending gap was sent with, or -1 while it is not in flight. */
  private long inFlightSeq = -1;
  /** Files lost other than to rotation (gone, shrunk), announced here. */
  private final AtomicLong lostElsewhere = new AtomicLong();

  /** {@code written}: writes the checkpoint, with the gaps, once one is noted. */
  GapLedger(Thread owner, File file, Runnable written) {
    this.owner = owner;
    this.file = file;
    this.written = written;
  }

  /** The gaps the last run had not got acknowledged go first, as they were. */
  void restore(List<ShipCheckpoint.PendingGap> gaps) {
    for (int i = gaps.size() - 1; i >= 0; i--) {
      pending.addFirst(gaps.get(i));
    }
    waiting = pending.size();
  }

  /**
   * A gap record to send, at {@code at} (its identity); sent before the next record, kept (in the checkpoint too,
   * written at once) until acknowledged.
   */
  void note(String what, ShipPosition at) {
    assert Thread.currentThread() == owner;
    LOG.warn("nnaudit: shipping {}: {}", file, what);
    pending.addLast(new ShipCheckpoint.PendingGap(at.fileSeq, at.offset, "nnaudit: " + what));
    waiting = pending.size();
    changed = true;
    written.run();
  }

  /** A gap for a file lost other than to rotation: counted too. */
  void noteLostFile(String what, ShipPosition at) {
    note(what, at);
    lostElsewhere.incrementAndGet();
  }

  boolean isEmpty() {
    return pending.isEmpty();
  }

  /**
   * Sends the first gap, while reading at {@code read}, unless it is in flight already. Returns whether it was
   * sent now.
   */
  boolean sendFirst(OrderedSender sender, ShipPosition read) {
    assert Thread.currentThread() == owner;
    if (inFlightSeq >= 0) {
      return false; // waits for its acknowledgement
    }
    ShipCheckpoint.PendingGap gap = pending.peekFirst();
    long seq = sender.nextSeq();
    if (!sender.sendGap(sender.headers(ShipHeaders.GAP, gap.fileSeq, gap.offset), ShipHeaders.bytes(gap.text),
        read)) {
      return false;
    }
    inFlightSeq = seq;
    return true;
  }

  /** Drops the first gap once Kafka has acknowledged it under {@code g}, the generation it was sent in. */
  void settle(Acknowledgements.Generation g) {
    assert Thread.currentThread() == owner;
    if (inFlightSeq >= 0 && g.gapAcknowledged(inFlightSeq)) {
      pending.pollFirst();
      waiting = pending.size();
      inFlightSeq = -1;
      changed = true; // the next checkpoint leaves it out
    }
  }

  /** At a rewind: a gap not acknowledged is sent again. */
  void forgetInFlight() {
    inFlightSeq = -1;
  }

  /** Whether the gaps changed since {@link #saved}. */
  boolean changed() {
    return changed;
  }

  /** The gaps, for the checkpoint. */
  List<ShipCheckpoint.PendingGap> pending() {
    return new ArrayList<>(pending);
  }

  /** The checkpoint holds the gaps as they are now. */
  void saved() {
    changed = false;
  }

  /** Gap records not yet acknowledged; any thread. */
  int waiting() {
    return waiting;
  }

  /** Files lost other than to rotation; any thread. */
  long lostElsewhere() {
    return lostElsewhere.get();
  }
}
