package io.nnaudit.kafka.verify;

import java.security.MessageDigest;

/**
 * The last records of one source, by place, with a hash of each: what a record sent again (the same identity,
 * after a restart or a failed send) is compared with. A copy whose value differs from the first is a change, which
 * a consumer that drops duplicates would never see; so is one that says otherwise whether the line was cut, or how
 * long it was (a whole line relabelled cut, a cut one relabelled whole: the same value, another record).
 *
 * <p>Bounded: a ring of the last {@code capacity} records, 24 bytes each (the place and 128 bits of the SHA-256 of
 * its cut flag, line length and value). The shipper sends again only what it sent after its last checkpoint
 * (taken every second by default), so a copy of a record older than the ring is not expected; it is answered
 * {@link Lookup#TOO_OLD} and the caller reports it as not compared. Places are added in increasing order, so a
 * lookup is a binary search.
 */
final class RecentRecords {
  enum Lookup {
    /** The same record (value, cut or not, line length) was seen at that place. */
    SAME,
    /** Another record was seen at that place. */
    DIFFERENT,
    /** No record started at that place, within what the ring holds. */
    NO_RECORD_THERE,
    /** Before the oldest place the ring holds. */
    TOO_OLD
  }

  private final int capacity;
  /** Grown by doubling up to {@code capacity}, so that a source with few records costs little. */
  private long[] places;
  private long[] hashHigh;
  private long[] hashLow;
  /** Index of the oldest entry, and how many there are. */
  private int head;
  private int size;
  private final MessageDigest sha256 = Sha256.digest();

  RecentRecords(int capacity) {
    this.capacity = capacity;
    int first = Math.min(capacity, 1024);
    this.places = new long[first];
    this.hashHigh = new long[first];
    this.hashLow = new long[first];
  }

  private void grow() {
    int n = (int) Math.min(capacity, 2L * places.length);
    long[] p = new long[n];
    long[] h = new long[n];
    long[] l = new long[n];
    for (int k = 0; k < size; k++) {
      int i = (head + k) % places.length;
      p[k] = places[i];
      h[k] = hashHigh[i];
      l[k] = hashLow[i];
    }
    places = p;
    hashHigh = h;
    hashLow = l;
    head = 0;
  }

  /**
   * Adds a record at {@code place}, after every place added before: a line of {@code length} bytes, cut to its
   * {@code value} if {@code cut}.
   */
  void add(long place, boolean cut, long length, byte[] value) {
    byte[] h = digest(cut, length, value);
    int i;
    if (size == places.length && places.length < capacity) {
      grow();
    }
    if (size < places.length) {
      i = (head + size) % places.length;
      size++;
    } else {
      i = head;
      head = (head + 1) % places.length;
    }
    places[i] = place;
    hashHigh[i] = word(h, 0);
    hashLow[i] = word(h, 8);
  }

  /** What was seen at {@code place}, compared with this record. */
  Lookup lookup(long place, boolean cut, long length, byte[] value) {
    if (size == 0 || place < places[head]) {
      return Lookup.TOO_OLD;
    }
    int lo = 0;
    int hi = size - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      long p = places[(head + mid) % places.length];
      if (p < place) {
        lo = mid + 1;
      } else if (p > place) {
        hi = mid - 1;
      } else {
        int i = (head + mid) % places.length;
        byte[] h = digest(cut, length, value);
        return word(h, 0) == hashHigh[i] && word(h, 8) == hashLow[i] ? Lookup.SAME : Lookup.DIFFERENT;
      }
    }
    return Lookup.NO_RECORD_THERE;
  }

  private byte[] digest(boolean cut, long length, byte[] value) {
    sha256.update((byte) (cut ? 1 : 0));
    for (int k = 56; k >= 0; k -= 8) {
      sha256.update((byte) (length >>> k));
    }
    return sha256.digest(value);
  }

  private static long word(byte[] b, int at) {
    long w = 0;
    for (int k = 0; k < 8; k++) {
      w = (w << 8) | (b[at + k] & 0xffL);
    }
    return w;
  }
}
