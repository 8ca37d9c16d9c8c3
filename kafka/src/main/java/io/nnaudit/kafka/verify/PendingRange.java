package io.nnaudit.kafka.verify;

import java.security.MessageDigest;
import java.util.Arrays;

import io.nnaudit.seal.Seal;

/**
 * The records of one file of one source that no seal has covered yet: their bytes (each value followed by a line
 * end, as in the file) from byte {@link #start} of the file, where the next seal's range begins, and where each
 * record ends. When the seal comes, the range it names is hashed from here in one pass and dropped; the records
 * after it (the sealing thread writes a seal a moment after its bytes, so later records may come first) stay
 * for the next seal.
 *
 * <p>Why bytes and not running hashes: the seal's end is known only when the seal arrives, so a running hash
 * would need a copy of its state at every record end the seal might name; a copy of SHA-256's state is about 220
 * bytes on JDK 17 (measured), as much as a stock audit line, and a copy per record costs an allocation where the
 * bytes cost a copy. And where the range's start is not known (the stream starts mid-chain, or resumes after an
 * announced gap), no running hash can be begun: the next range starts at the end of the first seal read, which
 * may come after records that follow it; held bytes can be hashed from there. The bytes are bounded by
 * {@code maxBytes}: past it they are dropped, and the seal that comes is checked for its signature and its place
 * in the chain only, its records reported as not verified ({@link #unhashable}). A seal comes a moment after its
 * bytes, so what is held is about one seal interval of records.
 *
 * <p>A cut record ({@code record-cut}) holds only the beginning of its line: it takes the file's bytes its
 * length says, but only its value is held. The range a seal names over it cannot be hashed
 * ({@link #cutThrough}); its records are still counted and its ends still held, and the records after it are
 * hashed as any others: the next range starts afresh at the seal's end.
 */
final class PendingRange {
  private final int maxBytes;
  private byte[] bytes = new byte[1 << 16];
  private int length;
  /** The record ends held (file offsets), and the Kafka offset of each record. */
  private long[] ends = new long[1024];
  private long[] kafkaOffsets = new long[1024];
  /** Where each record's bytes end in {@link #bytes} (its file end less the bytes cut records left out). */
  private int[] byteEnds = new int[1024];
  /** Whether each record was cut. */
  private boolean[] cutRecords = new boolean[1024];
  /** Cut records held: while none is, a file offset less {@link #start} is an index into {@link #bytes}. */
  private int cutHeld;
  private int count;
  /** The file offset of {@code bytes[0]}. */
  long start;
  /** Whether {@link #start} is where a seal's range must begin (a seal ended there, or a file begins there). */
  boolean startKnown;
  /**
   * Why the start is not known: null where the stream starts (mid-chain, which is no change), else a reason
   * (records lost before {@link #start} in an announced gap) that the seal covering them is reported with.
   */
  String unknownWhy;
  /** The file offset after the last record added. */
  long end;
  /** Null, or why the bytes held cannot be hashed (a cut record, a hole announced by a gap, too many bytes). */
  String unhashable;
  /** Records added since {@link #start}, counted even when their bytes were dropped. */
  long records;
  /** Whether the record ends were dropped too (more records than {@code maxBytes / 32}): counts are then all held. */
  private boolean endsLost;
  /** Records were lost among those held (a gap): a seal's count of them cannot be held against them. */
  private boolean holed;

  PendingRange(int maxBytes) {
    this.maxBytes = maxBytes;
  }

  /** Starts over at {@code at} of a file, holding nothing; {@code whyUnknown} as {@link #unknownWhy}. */
  void reset(long at, boolean known, String whyUnknown) {
    reset(at, known);
    unknownWhy = known ? null : whyUnknown;
  }

  /** Starts over at {@code at} of a file, holding nothing. */
  void reset(long at, boolean known) {
    unknownWhy = null;
    length = 0;
    count = 0;
    records = 0;
    endsLost = false;
    cutHeld = 0;
    holed = false;
    start = at;
    end = at;
    startKnown = known;
    unhashable = null;
  }

  /** Adds a record (its whole line, or the beginning of a cut one) that ends at {@code recordEnd}. */
  void add(byte[] value, boolean cut, long recordEnd, long kafkaOffset) {
    records++;
    end = recordEnd;
    if (unhashable == null && (long) length + value.length + 1 > maxBytes) {
      unhashable = "more than " + maxBytes + " bytes of records waited for their seal (--max-pending-bytes)";
    }
    if (unhashable != null) {
      length = 0; // bytes no longer kept; ends are still, so that a seal's records can be counted
    } else {
      if (length + value.length + 1 > bytes.length) {
        bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + value.length + 1));
      }
      System.arraycopy(value, 0, bytes, length, value.length);
      length += value.length;
      bytes[length++] = '\n';
    }
    if (count == ends.length) {
      if ((long) count * 32 > maxBytes) {
        endsLost = true;
        count = 0;
        cutHeld = 0;
      } else {
        ends = Arrays.copyOf(ends, count * 2);
        kafkaOffsets = Arrays.copyOf(kafkaOffsets, count * 2);
        byteEnds = Arrays.copyOf(byteEnds, count * 2);
        cutRecords = Arrays.copyOf(cutRecords, count * 2);
      }
    }
    if (!endsLost) {
      ends[count] = recordEnd;
      kafkaOffsets[count] = kafkaOffset;
      byteEnds[count] = length;
      cutRecords[count++] = cut;
      cutHeld += cut ? 1 : 0;
    } else if (cut && unhashable == null) { // where its bytes end can no longer be told
      hole(CUT);
    }
  }

  /** Why a range that holds a cut record is not hashed. */
  static final String CUT = "a record cut short by the shipper (record-cut) is among them";

  /** Records held that end after {@code to}. */
  long recordsAfter(long to) {
    return records - recordsThrough(to);
  }

  /** Whether a record held that ends at or before {@code to} was cut: the range to {@code to} cannot be hashed. */
  boolean cutThrough(long to) {
    if (cutHeld == 0) {
      return false;
    }
    for (int i = 0; i < count && ends[i] <= to; i++) {
      if (cutRecords[i]) {
        return true;
      }
    }
    return false;
  }

  /** Where the bytes through file offset {@code to} (a boundary) end in {@link #bytes}. */
  private int byteIndex(long to) {
    if (to == start) {
      return 0;
    }
    if (cutHeld == 0) {
      return (int) (to - start);
    }
    int i = Arrays.binarySearch(ends, 0, count, to);
    return i >= 0 ? byteEnds[i] : (int) Math.min(length, to - start);
  }

  /** Marks the bytes held as not hashable: records between them were lost, as a gap record announced. */
  void hole(String why) {
    holed = true;
    if (unhashable == null) {
      unhashable = why;
    }
    length = 0;
  }

  boolean isEmpty() {
    return records == 0;
  }

  /** Whether {@link #recordsThrough} counts the records up to a place, not every record held. */
  boolean endsKept() {
    return !endsLost;
  }

  /** Records held that end at or before {@code to}. */
  long recordsThrough(long to) {
    if (endsLost) {
      return records;
    }
    int i = 0;
    while (i < count && ends[i] <= to) {
      i++;
    }
    return i;
  }

  /** Whether a record held ends at {@code at}, or {@code at} is {@link #start}. */
  boolean isBoundary(long at) {
    if (at == start || endsLost) {
      return true;
    }
    return Arrays.binarySearch(ends, 0, count, at) >= 0;
  }

  /** The Kafka offset of the first record that ends after {@code at}, or -1. */
  long kafkaOffsetAfter(long at) {
    for (int i = 0; i < count; i++) {
      if (ends[i] > at) {
        return kafkaOffsets[i];
      }
    }
    return -1;
  }

  /** The SHA-256 (hex) of the bytes from {@link #start} to {@code to}, a boundary, when they are held. */
  String sha256Through(long to) {
    MessageDigest d = Sha256.digest();
    d.update(bytes, 0, byteIndex(to));
    return Seal.hex(d.digest());
  }

  /** Whether the bytes from {@link #start} on are held and can be hashed. */
  boolean hashable() {
    return unhashable == null;
  }

  /** Drops what ends at or before {@code to} (a seal's end, a boundary); the range now starts there, known. */
  void dropThrough(long to) {
    if (to < start) { // a seal of bytes before those held: the next range starts before them too
      return;
    }
    if (endsLost) {
      long heldEnd = end;
      reset(to, true);
      if (heldEnd > to) { // what came after to is not known record by record: not hashable, counted as one run
        end = heldEnd;
        endsLost = true;
        unhashable = "the records after byte " + to + " came while their bytes could not be kept";
      }
      return;
    }
    int n = (int) recordsThrough(to);
    if (unhashable == null) {
      int cut = byteIndex(to);
      System.arraycopy(bytes, cut, bytes, 0, length - cut);
      length -= cut;
      for (int i = n; i < count; i++) {
        byteEnds[i] -= cut;
      }
      if (bytes.length > (4 << 20) && length < bytes.length / 4) { // a seal that came late once: give it back
        bytes = Arrays.copyOf(bytes, Math.max(1 << 16, length * 2));
      }
    } else {
      length = 0;
      unhashable = null;
      // the records after to were added while the bytes were not kept: they cannot be hashed either
      if (n < count) {
        unhashable = "the records after byte " + to + " came while their bytes could not be kept";
      }
    }
    System.arraycopy(ends, n, ends, 0, count - n);
    System.arraycopy(kafkaOffsets, n, kafkaOffsets, 0, count - n);
    System.arraycopy(byteEnds, n, byteEnds, 0, count - n);
    System.arraycopy(cutRecords, n, cutRecords, 0, count - n);
    count -= n;
    cutHeld = 0;
    for (int i = 0; i < count; i++) {
      cutHeld += cutRecords[i] ? 1 : 0;
    }
    records = count;
    start = to;
    startKnown = true;
    unknownWhy = null;
    holed = false;
  }

  /**
   * Whether the records of a range from {@code from} can be counted and their ends told, whether or not their
   * bytes are held: it starts where the held records do, with no records lost among them. A read, or the trail
   * after a gap, that begins exactly where a seal's range begins holds every record of that range.
   */
  boolean countable(long from) {
    return from == start && !holed && !endsLost;
  }

  /** Where the {@code k}-th record held (from 1) ends, or -1 when not known. */
  long endOfRecord(long k) {
    return endsLost || k < 1 || k > count ? -1 : ends[(int) k - 1];
  }
}
