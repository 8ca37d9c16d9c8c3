package io.nnaudit.kafka;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.nnaudit.seal.DigestFile;
import io.nnaudit.seal.Seal;

/**
 * The seals of the audit file being shipped, read from its digest ({@code <audit file>.seals}, see
 * {@link io.nnaudit.seal.DigestFile}) as the sink appends them, for the shipper to send each after the record
 * that ends where the seal's range ends.
 *
 * <p>The digest is followed through an open channel, so rotation's renames do not matter once it is open. Only
 * whole lines are taken: a line the sink is still writing (or one it truncates after a failed write) is read
 * again once it is whole. A line that is not a seal (a damaged digest) is skipped with a warning; the chain of
 * seals in the stream then shows the break, as {@code nnaudit verify} does on the host. At most
 * {@link #MAX_QUEUED} seals are held; the rest of the digest is read as they go. Used by the shipper's thread
 * only.
 *
 * <p>The channel is opened without following links, which a stream or {@code RandomAccessFile} cannot do, so an
 * interrupt of the thread from outside closes it under the look at its size or the read it lands in. Then the
 * digest is opened again ({@link Reopen}: found as at first, and taken only if its name's lstat gives the inode
 * the first open's did), the interrupt is cleared just before the look or read is made again, and what was read so
 * far is kept; at most {@link #INTERRUPTED_TRIES} tries, none once a stop's time is up. If the digest is not found
 * as it was, or the last try fails too, the interrupt's failure goes to the caller, whose pass then opens the
 * files again.
 */
final class DigestFollower {
  private static final Logger LOG = LoggerFactory.getLogger(DigestFollower.class);
  /** Seals held at most; a digest holds one line per {@code nnaudit.seal.interval.records} records. */
  static final int MAX_QUEUED = 256;
  /** Tries of a look or read of the digest whose channel interrupts from outside keep closing. */
  private static final int INTERRUPTED_TRIES = 3;

  /** One seal to send: its line as written in the digest, and the end of the range it covers. Immutable. */
  static final class PendingSeal {
    final byte[] line;
    final long to;

    PendingSeal(byte[] line, long to) {
      this.line = line;
      this.to = to;
    }
  }

  /** Opens the digest being followed again, after an interrupt closed its channel. */
  interface Reopen {
    /** The same digest (the same inode), open again; null if it is not to be found as it was. */
    FileChannel sameDigest() throws IOException;
  }

  private final StopSignal stop;
  private final ArrayDeque<PendingSeal> queue = new ArrayDeque<>();
  private FileChannel digest;
  private Reopen reopen;
  private ByteBuffer buffer;
  /** Where the first line not yet taken starts. */
  private long readTo;
  /** The digest's size at the last look; a line being written is looked at, not taken. */
  private long lookedAt;
  /** The last look stopped at {@link #MAX_QUEUED} seals held, before the end of the digest. */
  private boolean more;
  /** Seals ending before this byte of the audit file were shipped before; they are passed over. */
  private long from;
  /** Inside a line longer than {@link DigestFile#MAX_LINE}, skipped up to its end. */
  private boolean skippingLongLine;
  /** Lines of this digest that were not seals. */
  private long damaged;

  DigestFollower(StopSignal stop) {
    this.stop = stop;
  }

  /**
   * Starts following {@code channel}, the digest of a file whose seals ending at or after {@code from} are due;
   * {@code reopen} opens it again after an interrupt closed the channel (null: it is not opened again).
   */
  void open(FileChannel channel, long from, Reopen reopen) {
    close();
    this.digest = channel;
    this.reopen = reopen;
    this.from = from;
    if (buffer == null) {
      buffer = ByteBuffer.allocate(2 * DigestFile.MAX_LINE);
    }
  }

  boolean isOpen() {
    return digest != null;
  }

  /** Closes the digest and forgets what was queued from it. */
  void close() {
    queue.clear();
    readTo = 0;
    lookedAt = 0;
    more = false;
    skippingLongLine = false;
    damaged = 0;
    if (digest != null) {
      try {
        digest.close();
      } catch (IOException e) {
        LOG.debug("nnaudit: closing a digest failed", e);
      }
      digest = null;
    }
    reopen = null;
  }

  /** The next seal to send, or null; reads more of the digest when what was held has been sent. */
  PendingSeal peek() throws IOException {
    if (queue.isEmpty() && more) {
      fill();
    }
    return queue.peekFirst();
  }

  /** The seal {@link #peek} returned has been sent (or is given up). */
  void remove() {
    queue.pollFirst();
  }

  /** Seals held, not yet sent. */
  int held() {
    return queue.size();
  }

  /** Whether a seal may wait to be sent: one held that ends by {@code upTo}, or lines not yet looked at. */
  boolean waiting(long upTo) throws IOException {
    PendingSeal first = queue.peekFirst();
    if (first != null && first.to <= upTo || more) {
      return true;
    }
    return digest != null && size() > lookedAt; // a failed look throws: it is not "no seal waiting"
  }

  /** Takes the whole lines written since the last look, up to {@link #MAX_QUEUED} seals held. */
  void fill() throws IOException {
    if (digest == null) {
      return;
    }
    long size = size();
    if (size < readTo) { // only a part of a line can be taken back; anything more is a rewritten digest
      LOG.warn("nnaudit: the digest being shipped shrank from {} to {} bytes; following it from its new end", readTo,
          size);
      readTo = size;
    }
    more = false;
    while (readTo < size) {
      if (queue.size() >= MAX_QUEUED) {
        more = true;
        break;
      }
      int n = readAt(readTo);
      if (n <= 0) {
        break;
      }
      byte[] a = buffer.array();
      int start = 0;
      for (int i = 0; i < n && queue.size() < MAX_QUEUED; i++) {
        if (a[i] == '\n') {
          take(a, start, i - start);
          start = i + 1;
        }
      }
      if (start == 0 && n == buffer.capacity()) { // no line end in 2 * DigestFile.MAX_LINE bytes: not a seal
        start = n;
        if (!skippingLongLine) {
          skippingLongLine = true;
          notASeal("a line longer than " + DigestFile.MAX_LINE + " bytes");
        }
      }
      readTo += start;
      if (start == 0) {
        break; // a line being written: taken once whole
      }
    }
    lookedAt = size;
  }

  private long size() throws IOException {
    for (int tries = 1; ; tries++) {
      try {
        return digest.size();
      } catch (ClosedByInterruptException e) {
        reopenAfter(e, tries);
      }
    }
  }

  /** Reads from {@code at} into the cleared buffer: the bytes read, or -1 at the end. */
  private int readAt(long at) throws IOException {
    for (int tries = 1; ; tries++) {
      buffer.clear(); // a read cut short may have put bytes in it
      try {
        return digest.read(buffer, at);
      } catch (ClosedByInterruptException e) {
        reopenAfter(e, tries);
      }
    }
  }

  /**
   * The channel was closed by {@code e} at the try {@code tries}: opens the same digest again and clears the
   * interrupt for the next try, or throws {@code e} (a failure to open it again added to it).
   */
  private void reopenAfter(ClosedByInterruptException e, int tries) throws IOException {
    if (reopen == null || !stop.mayTryAgain(tries, INTERRUPTED_TRIES)) {
      throw e;
    }
    FileChannel again;
    try {
      again = reopen.sameDigest();
    } catch (IOException f) {
      e.addSuppressed(f);
      throw e;
    }
    if (again == null) {
      throw e;
    }
    digest = again;
    stop.clearStrayInterrupt(); // just before the next try: one that came while opening would fail it
  }

  private void take(byte[] a, int start, int length) {
    if (skippingLongLine) {
      skippingLongLine = false; // the end of the long line
      return;
    }
    if (length > DigestFile.MAX_LINE) {
      notASeal("a line longer than " + DigestFile.MAX_LINE + " bytes");
      return;
    }
    String line = new String(a, start, length, StandardCharsets.UTF_8);
    Seal s;
    try {
      s = Seal.parse(line);
    } catch (IllegalArgumentException e) {
      notASeal(e.getMessage());
      return;
    }
    if (s.to >= from) {
      byte[] value = new byte[length];
      System.arraycopy(a, start, value, 0, length);
      queue.addLast(new PendingSeal(value, s.to));
    }
  }

  private void notASeal(String why) {
    damaged++;
    if (damaged == 1) {
      LOG.warn("nnaudit: the digest being shipped holds a line that is not a seal ({}); it is not shipped (nnaudit "
          + "verify reports the damage on the host)", why);
    }
  }
}
