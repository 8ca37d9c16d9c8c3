package io.nnaudit.seal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.zip.CRC32;

import io.nnaudit.trail.LineEnds;

/**
 * What a seal says about a byte range of an audit file, computed over the bytes as they pass: their SHA-256,
 * their length, the records in them (lines, each ended by a newline) and an order-free sum of the records'
 * checksums. The writer feeds it what it writes; {@code nnaudit verify} feeds it what the file holds.
 *
 * <p>The SHA-256 is what proves the range unchanged. The sum of the records' checksums (a CRC32 and the length
 * of each line, mixed to 64 bits, added) is not a proof of anything: it lets verify tell records put in another
 * order (the same sum) from records changed (another sum). A line not yet ended counts in the hash and the
 * length but not as a record. The writer says where its records end, so the lines of what it writes are taken
 * from there rather than searched for (a sixth of the sealing thread's time when they were); verify searches.
 * Not thread-safe: one thread feeds it.
 */
public final class SegmentDigest {
  private final MessageDigest sha;
  private final CRC32 lineCrc = new CRC32();
  private long lineLength;
  private long bytes;
  private long records;
  private long lineSum;
  private long lastLineHash;
  private byte[] copy = new byte[0];

  public SegmentDigest() {
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java has SHA-256", e);
    }
  }

  /** Adds the remaining bytes of {@code buf}, without moving its position. */
  public void update(ByteBuffer buf) {
    int n = buf.remaining();
    if (buf.hasArray()) {
      update(buf.array(), buf.arrayOffset() + buf.position(), n);
    } else {
      if (copy.length < n) {
        copy = new byte[Math.max(n, 8192)];
      }
      buf.duplicate().get(copy, 0, n);
      update(copy, 0, n);
    }
  }

  /**
   * Adds the remaining bytes of {@code buf}, without moving its position, whose records end at {@code ends}
   * (offsets from its position; null when not known): see {@link #update(byte[], int, int, int[])}.
   */
  public void update(ByteBuffer buf, int[] ends) {
    if (ends != null && buf.hasArray()) {
      update(buf.array(), buf.arrayOffset() + buf.position(), buf.remaining(), ends);
    } else {
      update(buf);
    }
  }

  /**
   * Adds {@code b[off, off + len)}, whose records end at {@code ends}: offsets from {@code off}, rising, each
   * just past a newline, the last at {@code len}, with no other newline between them, as the writer's formatters
   * write records. The lines are taken from there instead of searched for, with the same result. Ends that do not
   * fit the bytes so (none, one not above the one before or beyond {@code len}, a newline missing before one, or
   * the last not at {@code len}) are ignored and the bytes searched. A newline inside a record is looked for only
   * under assertions (the tests), after the bytes are hashed.
   */
  public void update(byte[] b, int off, int len, int[] ends) {
    sha.update(b, off, len);
    bytes += len;
    if (!endsFit(b, off, len, ends)) {
      searchLines(b, off, len);
      return;
    }
    assert noNewlineInside(b, off, ends) : "a record holds a newline before its end";
    int lineStart = off;
    for (int e : ends) {
      int end = off + e;
      lineCrc.update(b, lineStart, end - lineStart);
      endLine(lineLength + end - lineStart);
      lineStart = end;
    }
  }

  private static boolean endsFit(byte[] b, int off, int len, int[] ends) {
    if (ends.length == 0 || ends[ends.length - 1] != len) {
      return false;
    }
    int before = 0;
    for (int e : ends) {
      if (e <= before || e > len || b[off + e - 1] != '\n') {
        return false;
      }
      before = e;
    }
    return true;
  }

  private static boolean noNewlineInside(byte[] b, int off, int[] ends) {
    LineEnds search = new LineEnds(b);
    int start = off;
    for (int e : ends) {
      if (search.next(start, off + e - 1) >= 0) {
        return false;
      }
      start = off + e;
    }
    return true;
  }

  /**
   * Adds the bytes {@code [from, to)} of the file {@code ch}, read at those positions; stops early at the end of
   * the file. Returns where it stopped: {@code to}, or the file's end before it.
   */
  public long update(FileChannel ch, long from, long to) throws IOException {
    ByteBuffer b = ByteBuffer.allocate((int) Math.min(1 << 16, Math.max(1, to - from)));
    long pos = from;
    while (pos < to) {
      b.clear();
      b.limit((int) Math.min(b.capacity(), to - pos));
      int n = ch.read(b, pos);
      if (n < 0) {
        break;
      }
      b.flip();
      update(b);
      pos += n;
    }
    return pos;
  }

  public void update(byte[] b, int off, int len) {
    sha.update(b, off, len);
    bytes += len;
    searchLines(b, off, len);
  }

  /** Counts the lines of {@code b[off, off + len)}, found by searching for newlines, and takes their checksums. */
  private void searchLines(byte[] b, int off, int len) {
    LineEnds ends = new LineEnds(b);
    int lineStart = off;
    int end = off + len;
    int nl;
    while ((nl = ends.next(lineStart, end)) >= 0) {
      lineCrc.update(b, lineStart, nl + 1 - lineStart);
      endLine(lineLength + nl + 1 - lineStart);
      lineStart = nl + 1;
    }
    if (lineStart < end) {
      lineCrc.update(b, lineStart, end - lineStart);
      lineLength += end - lineStart;
    }
  }

  private void endLine(long length) {
    records++;
    lastLineHash = mix(lineCrc.getValue() ^ (length << 32));
    lineSum += lastLineHash;
    lineCrc.reset();
    lineLength = 0;
  }

  /** The bytes added since the last reset. */
  public long bytes() {
    return bytes;
  }

  /** The lines ended since the last reset. */
  public long records() {
    return records;
  }

  /** The order-free sum of the ended lines' checksums. */
  public long lineSum() {
    return lineSum;
  }

  /** The checksum of the last line ended (0 before the first): lets verify find where a range's records end. */
  public long lastLineHash() {
    return lastLineHash;
  }

  /** The SHA-256 of the bytes added since the last reset, leaving everything as it is. */
  public byte[] peekSha256() {
    try {
      return ((MessageDigest) sha.clone()).digest();
    } catch (CloneNotSupportedException e) {
      throw new IllegalStateException("SHA-256 digests can be cloned in every Java", e);
    }
  }

  /** The SHA-256 of the bytes added since the last reset; resets everything. */
  public byte[] finish() {
    byte[] h = sha.digest();
    reset();
    return h;
  }

  /** Forgets everything added. */
  public void reset() {
    sha.reset();
    lineCrc.reset();
    lineLength = 0;
    bytes = 0;
    records = 0;
    lineSum = 0;
    lastLineHash = 0;
  }

  /** The finalizer of SplitMix64: spreads a 32-bit checksum and a length over 64 bits. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }
}
