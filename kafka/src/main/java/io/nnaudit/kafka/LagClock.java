package io.nnaudit.kafka;

import java.util.ArrayDeque;

/**
 * The age of the oldest record not yet acknowledged. The shipper notes, at each look at the files, how far the
 * trail reaches and when it first saw it reach there; the oldest unacknowledged record was written no later
 * than the first note that reaches past the acknowledged position. Used by the shipper's thread only; the result
 * is published through a volatile field by {@link ShipLag}.
 */
final class LagClock {
  /** Notes kept at most; past it new notes are skipped (the oldest, which decides the age, stay). */
  private static final int MAX_NOTES = 100_000;
  private final ArrayDeque<long[]> notes = new ArrayDeque<>();
  private long lastEnd = -1;

  /** The trail reaches {@code end} (a {@link ShipPosition#global}); first seen at {@code seenMillis}. */
  void note(long end, long seenMillis) {
    if (end > lastEnd && notes.size() < MAX_NOTES) {
      notes.addLast(new long[] {end, seenMillis});
    }
    lastEnd = Math.max(lastEnd, end);
  }

  /**
   * When the oldest record past {@code acked} was first seen, ms since the epoch (it was written no later); 0
   * when there is none.
   */
  long oldestSince(long acked, long nowMillis) {
    while (!notes.isEmpty() && notes.peekFirst()[0] <= acked) {
      notes.pollFirst();
    }
    if (notes.isEmpty()) {
      if (lastEnd > acked) { // notes were skipped at the bound: count from now on
        notes.addLast(new long[] {lastEnd, nowMillis});
      }
      return 0;
    }
    return notes.peekFirst()[1];
  }
}
