package io.nnaudit.kafka;

import java.util.List;

/**
 * How far shipping is behind: the bytes and files not yet acknowledged, from a look at the files; the records,
 * estimated from those bytes; and the age of the oldest of them ({@link LagClock}).
 *
 * <p>Design note. Nothing blocks. The shipper's thread looks at the files ({@link #observe}) several times a
 * second while it works, and before each of its waits; the metrics thread computes the bytes from a look of its
 * own ({@link #of}, static), so that they are current even while the shipper's thread is held in a send. Who owns
 * what: the clock is the shipper's thread's; {@link #lastObserveMillis} and
 * {@link #oldestUnackedSince} are written by it, volatile, and read by the metrics.
 */
final class ShipLag {
  private final LagClock clock = new LagClock();
  /** A lower bound of the lag's age while the shipper's thread is held. */
  private volatile long lastObserveMillis;
  /** When the oldest unacknowledged record was first seen (ms since the epoch), 0 for none; see {@link LagClock}. */
  private volatile long oldestUnackedSince;

  /** The shipper's thread looked at {@code files} at {@code now}, Kafka having acknowledged up to {@code a}. */
  void observe(List<SpoolFile> files, ShipPosition a, long now) {
    int i = a.fileKey == null ? -1 : SpoolDirectory.indexOf(files, a.fileKey);
    long liveSeq = a.fileSeq;
    long liveSize = 0;
    if (!files.isEmpty() && files.get(files.size() - 1).live) {
      liveSeq = a.fileSeq + (i >= 0 ? files.size() - 1 - i : 0);
      liveSize = files.get(files.size() - 1).size;
    }
    clock.note(ShipPosition.global(liveSeq, liveSize), now);
    oldestUnackedSince = clock.oldestSince(a.global(), now);
  }

  /** The shipper's thread is about to look at the files at {@code now} (stamped even if the look then fails). */
  void looking(long now) {
    lastObserveMillis = now;
  }

  long lastObserveMillis() {
    return lastObserveMillis;
  }

  /** Bytes not yet acknowledged and the files holding them, from {@code a} on, in {@code files}. */
  static long[] of(List<SpoolFile> files, ShipPosition a) {
    int i = a.fileKey == null ? -1 : SpoolDirectory.indexOf(files, a.fileKey);
    long bytes = 0;
    long waiting = 0;
    for (int j = 0; j < files.size(); j++) {
      SpoolFile f = files.get(j);
      if (i >= 0 ? j < i : f.modifiedNanos <= a.modifiedNanos) {
        continue;
      }
      long unacked = f.key.equals(a.fileKey) ? f.size - a.offset : f.size;
      if (unacked > 0) {
        bytes += unacked;
        waiting++;
      }
    }
    return new long[] {bytes, waiting};
  }

  /**
   * The age of the oldest record not acknowledged, with {@code bytes} waiting: since it was first seen, or, while
   * the shipper's thread has not seen it, since its last look.
   */
  long ageMillis(long bytes, long now) {
    long since = oldestUnackedSince;
    long age = bytes <= 0 ? 0 : since != 0 ? now - since : now - lastObserveMillis;
    return Math.max(0, age);
  }

  /**
   * The records not yet acknowledged, with {@code bytes} waiting: those handed to the producer, counted exactly,
   * those not yet read, estimated from their bytes at the average record size shipped so far (200 bytes before
   * the first), and {@code gapsWaiting} gap records. 0 exactly when nothing waits; -1 before the first look at
   * the files. As fresh as the shipper's last look at the files (a send can hold its thread for max.block.ms).
   */
  static long records(long bytes, Acknowledgements acks, int gapsWaiting) {
    if (bytes <= 0) {
      return bytes < 0 ? bytes : gapsWaiting;
    }
    long shipped = acks.shippedRecords();
    long shippedB = acks.shippedBytes();
    long inFlight = Math.max(0, acks.sentRecords() - shipped);
    long unread = Math.max(0, bytes - Math.max(0, acks.sentBytes() - shippedB));
    double average = shipped > 0 ? (double) shippedB / shipped : 200;
    return inFlight + (long) Math.ceil(unread / average) + gapsWaiting;
  }
}
