package io.nnaudit.kafka;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;

/**
 * What Kafka has acknowledged of what the shipper sent: the position before which every record is
 * acknowledged, moved only by acknowledgements that arrive in the order of sending (checked by sequence, so a
 * hole is never skipped over), and the counts the metrics show.
 *
 * <p>Design note. Nothing here blocks or drops. Each producer the shipper opens has a {@link Generation}: the
 * acknowledgements of its records and where they reach. The shipper's thread makes a generation before it
 * opens the producer that sends under it, and at a rewind retires it before closing that producer, then reads
 * what it reached and starts the next one from there. Who owns what:
 * <ul>
 * <li>{@link #current}: written by the shipper's thread (at the start and at each rewind), volatile; read by the
 * shipper's thread and the metrics.</li>
 * <li>{@code Generation.nextAckSeq}: set by the shipper's thread when it makes the generation, before the
 * producer that sends under it is created (whose constructor starts the producer's I/O thread: Thread.start
 * publishes it); from then on written and read by that I/O thread only, in the callbacks. Checked: the first
 * callback binds the thread, and an acknowledgement on any other breaks the generation (a resend from the last
 * acknowledged record, never a skip; not an assert, whose Error would kill the producer's I/O thread). A
 * callback the producer runs on the shipper's thread inside {@code send} (a refusal: nothing was sent) never
 * reaches it ({@link OrderedSender}).</li>
 * <li>{@code Generation.acknowledged}, {@code gapAckedSeq}, {@code lastAckedSeq}, {@code refusedRecordAt},
 * {@code refusedSealAt}, {@code refusedTogetherEnd}: set by the shipper's thread when it makes the generation,
 * then written by that I/O thread, volatile; read by the shipper's thread ({@code acknowledged} by the metrics
 * too).</li>
 * <li>{@code Generation.broken}: the first failure wins ({@code compareAndSet}): the I/O thread sets it on a
 * failed or out-of-order acknowledgement, the shipper's thread on a failure of the client library.</li>
 * <li>{@code Generation.retired}: written by the shipper's thread, volatile; read by the callbacks, which change
 * nothing of a retired generation.</li>
 * <li>The counters: atomic or volatile. The I/O thread adds what is acknowledged ({@link #shippedRecords},
 * {@link #shippedBytes}, {@link #lastAckMillis}); the shipper's thread what it handed to the producer
 * ({@link #sentRecords}, {@link #sentBytes}, reset to the acknowledged counts at a rewind); both count send
 * errors; the metrics read them all.</li>
 * </ul>
 * Order at a rewind: the shipper's thread retires the generation, then closes its producer. Called from the
 * shipper's thread (not from a callback), {@code KafkaProducer.close} returns only once the producer's I/O
 * thread has ended: when the time given is up it force-closes the producer (failing what is in flight, through
 * the callbacks, on that thread) and joins the thread without a bound; only an interrupt cuts the join short
 * (close then throws). So after close no callback of the old producer runs, and Thread.join makes what it
 * wrote visible. Were the join cut short, a late callback would still change only the retired generation, which
 * no one reads once the next has started: the next starts from what the old one had reached when it was read,
 * so records may be sent again, never skipped; only the shipped counts could run ahead.
 */
final class Acknowledgements {
  private volatile Generation current;
  private final AtomicLong shippedRecords = new AtomicLong();
  private final AtomicLong shippedBytes = new AtomicLong();
  private final AtomicLong sendErrors = new AtomicLong();
  private volatile long lastAckMillis;
  /** Records, and their bytes, handed to the producer and not known to have failed; reset to the acked counts. */
  private final AtomicLong sentRecords = new AtomicLong();
  private final AtomicLong sentBytes = new AtomicLong();

  /** The acknowledgements of one producer. */
  static final class Generation {
    private volatile boolean retired;
    /** The seq the next acknowledgement must carry; see the class note. */
    private long nextAckSeq;
    /** The thread of the first callback, which alone may move {@link #nextAckSeq}; only the check reads it. */
    private Thread ackThread;
    private volatile ShipPosition acknowledged;
    private volatile long gapAckedSeq = -1;
    /** The seq of the last record acknowledged (one before the first while none is): seals and file ends too. */
    private volatile long lastAckedSeq;
    /** The start of the first record the broker refused as such (too large, invalid), or -1. */
    private volatile long refusedRecordAt = -1;
    /** Where the first seal the broker refused as such ends ({@link ShipPosition#global}), or -1. */
    private volatile long refusedSealAt = -1;
    /** Where the first {@code records} record the broker refused as such ends ({@link ShipPosition#global}), or -1. */
    private volatile long refusedTogetherEnd = -1;
    private final AtomicReference<Exception> broken = new AtomicReference<>();

    Generation(long firstSeq, ShipPosition acknowledged) {
      this.nextAckSeq = firstSeq;
      this.lastAckedSeq = firstSeq - 1;
      this.acknowledged = acknowledged;
    }

    /**
     * Whether every record sent under it is acknowledged, {@code nextSeq} being the seq the next would carry: a seal
     * or file end in flight leaves the acknowledged position where it is, so the position alone does not say so.
     */
    boolean allAcknowledged(long nextSeq) {
      return lastAckedSeq >= nextSeq - 1;
    }

    /** Every record sent under it before this position is acknowledged. */
    ShipPosition acknowledged() {
      return acknowledged;
    }

    /** The failure that ends it, or null while none. */
    Exception broken() {
      return broken.get();
    }

    long refusedRecordAt() {
      return refusedRecordAt;
    }

    long refusedSealAt() {
      return refusedSealAt;
    }

    long refusedTogetherEnd() {
      return refusedTogetherEnd;
    }

    /** Whether the gap record sent with {@code seq} is acknowledged. */
    boolean gapAcknowledged(long seq) {
      return gapAckedSeq >= seq;
    }

    /**
     * Whether {@code seq} is the one expected next; if so the next is expected after it. An acknowledgement on a
     * second thread is out of order (the generation breaks, and the shipper resends from the last acknowledged
     * record): a plain check, not an assert, because the producer's I/O thread dies of an Error, which would leave
     * the generation waiting for callbacks that never come.
     */
    private boolean inOrder(long seq) {
      if (!onAckThread()) {
        return false;
      }
      if (seq != nextAckSeq) {
        return false;
      }
      nextAckSeq = seq + 1;
      return true;
    }

    private boolean onAckThread() {
      if (ackThread == null) {
        ackThread = Thread.currentThread();
      }
      return ackThread == Thread.currentThread();
    }
  }

  /** One record handed to the producer, as its acknowledgement needs it. Immutable. */
  static final class Sent {
    final Generation gen;
    final long seq;
    /** Where the reading stood when it was sent ({@link ShipPosition#global}). */
    final long start;
    final ShipPosition end;
    final long bytes;
    /** The audit lines it carries: 0 for a control record, more than 1 for a {@code records} record. */
    final int lines;
    final boolean isGap;
    /** For a seal, where it ends ({@link ShipPosition#global}); else -1. */
    final long sealAt;

    Sent(Generation gen, long seq, long start, ShipPosition end, long bytes, int lines, boolean isGap,
        long sealAt) {
      this.gen = gen;
      this.seq = seq;
      this.start = start;
      this.end = end;
      this.bytes = bytes;
      this.lines = lines;
      this.isGap = isGap;
      this.sealAt = sealAt;
    }
  }

  /** The shipper's thread starts a generation: at the start, and after each rewind. */
  void start(Generation g) {
    current = g;
  }

  /** The generation of the producer open now (or to be opened next); null before the start. */
  Generation current() {
    return current;
  }

  /** The acknowledged position of the current generation; null before the start. */
  ShipPosition acknowledged() {
    Generation g = current;
    return g == null ? null : g.acknowledged;
  }

  boolean isBroken() {
    return current.broken() != null;
  }

  /** The shipper's thread met a failure of the client library: the current generation ends with it. */
  void fail(Exception e) {
    current.broken.compareAndSet(null, e);
  }

  /** The shipper's thread retires {@code g} before closing its producer: its callbacks change nothing more. */
  static void retire(Generation g) {
    g.retired = true;
  }

  /** On the producer's I/O thread: the outcome of {@code s}; moves the position only in the order of sending. */
  void acknowledge(Sent s, Exception e) {
    Generation g = s.gen;
    if (g.retired) {
      return;
    }
    if (e != null && isRefusedRecord(e)) { // this record itself was refused (its neighbours fail otherwise)
      if (s.sealAt >= 0) {
        if (g.refusedSealAt < 0) {
          g.refusedSealAt = s.sealAt;
        }
      } else if (s.lines > 1) {
        if (g.refusedTogetherEnd < 0) {
          g.refusedTogetherEnd = s.end.global();
        }
      } else if (g.refusedRecordAt < 0) {
        g.refusedRecordAt = s.start;
      }
    }
    if (g.broken.get() != null) {
      return;
    }
    long expected = g.nextAckSeq;
    if (e != null || !g.inOrder(s.seq)) {
      sendErrors.incrementAndGet();
      g.broken.compareAndSet(null, e != null ? e : new IllegalStateException("acknowledged out of order: " + s.seq
          + ", expected " + expected));
      return;
    }
    if (s.isGap) {
      g.gapAckedSeq = s.seq;
    }
    g.acknowledged = s.end;
    g.lastAckedSeq = s.seq;
    if (s.lines > 0) {
      shippedRecords.addAndGet(s.lines);
    }
    shippedBytes.addAndGet(s.bytes);
    lastAckMillis = System.currentTimeMillis();
  }

  private static boolean isRefusedRecord(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof RecordTooLargeException || c instanceof RecordBatchTooLargeException
          || c instanceof InvalidRecordException) {
        return true;
      }
    }
    return false;
  }

  /** The shipper's thread handed a record of {@code lines} audit lines (0: a control record), {@code bytes}, over. */
  void handedOver(int lines, long bytes) {
    if (lines > 0) {
      sentRecords.addAndGet(lines);
    }
    sentBytes.addAndGet(bytes);
  }

  /** At a rewind: what was handed over and not acknowledged is sent again. */
  void forgetInFlight() {
    sentRecords.set(shippedRecords.get());
    sentBytes.set(shippedBytes.get());
  }

  void countSendError() {
    sendErrors.incrementAndGet();
  }

  long shippedRecords() {
    return shippedRecords.get();
  }

  long shippedBytes() {
    return shippedBytes.get();
  }

  long sentRecords() {
    return sentRecords.get();
  }

  long sentBytes() {
    return sentBytes.get();
  }

  long sendErrors() {
    return sendErrors.get();
  }

  /** When the last acknowledgement came (ms since the epoch), 0 before the first. */
  long lastAckMillis() {
    return lastAckMillis;
  }
}
