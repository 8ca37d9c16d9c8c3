package io.nnaudit.seal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.nnaudit.trail.TrailNames;

/**
 * Appends seal lines to the live file's digest, whole or not at all: a line whose write fails is cut back out (or, if
 * that fails too, before the next line or at close), and a digest that something else has written meanwhile is not
 * written over. The digest is opened by the sink's {@link Sealer.DigestOpener} (which refuses links and FIFOs as for
 * the audit file), at once at a start, else with the first line it is to hold.
 *
 * <p>Design note. Blocks in the write(2) of a line and, with a durability other than none, in the fsync of the
 * digest ({@link #force}, and before closing it). Every field belongs to the thread that runs the
 * {@link Sealer}. An interrupt of that thread in a write or an fsync closes the channel: the write fails, and
 * its bytes, which may have reached the file all the same, are cut back out by the next write (or at close),
 * through the digest opened again at its path, keeping the size this writer knows; only while the digest holds
 * no more than that size and the failed line (anything else there is someone else's, and refused). Shut-down:
 * {@link #close} cuts a failed line back, fsyncs (unless durability is none) and closes the digest.
 */
final class DigestWriter {
  private static final Logger LOG = LoggerFactory.getLogger(Sealer.class);

  private final boolean durable;
  /** The live file's digest; null when it is yet to be opened by {@link #opener}. */
  private FileChannel digest;
  private Sealer.DigestOpener opener;
  /** Where the live file's digest is. */
  private Path path;
  /** The digest's size: a seal that fails half-way is truncated back to it. */
  private long size;
  /** A seal line was left unfinished in the digest (its write failed, and so did cutting it back). */
  private boolean unfinishedLine;
  /** With {@link #unfinishedLine}: the length of the line whose write failed; the most that may be cut back. */
  private long unfinishedLength;

  DigestWriter(boolean durable) {
    this.durable = durable;
  }

  /** Where the seals of {@code auditPath} go from now on; the digest is opened with the next line. */
  void moveTo(Path auditPath, Sealer.DigestOpener digestOpener) {
    this.path = TrailNames.digest(auditPath);
    this.opener = digestOpener;
  }

  /**
   * Opens the digest now, dropping a line a killed run left unfinished (see {@link DigestFile}). The channel and
   * the size are taken together: if the look at the digest fails (an interrupt), neither is, and the next line
   * opens it again.
   */
  void open() throws IOException {
    FileChannel opened = opener.open();
    long found;
    try {
      found = DigestFile.dropUnfinishedLine(path, opened);
    } catch (IOException | RuntimeException e) {
      try {
        opened.close();
      } catch (IOException c) {
        e.addSuppressed(c);
      }
      throw e;
    }
    digest = opened;
    size = found;
    unfinishedLine = false;
  }

  /** The digest's path. */
  Path path() {
    return path;
  }

  /** Ends the digest's last line if it has no newline (garbage kept as evidence), so that a seal starts a line. */
  void endLastLine() throws IOException {
    size = digest.size();
    ByteBuffer last = ByteBuffer.allocate(1);
    try (FileChannel in = FileChannel.open(path, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      if (size > 0 && in.read(last, size - 1) == 1 && last.get(0) != '\n') {
        write("");
      }
    }
  }

  /** Appends {@code line} and a newline, opening the digest first if it is not open (or was closed). */
  void append(String line) throws IOException {
    if (digest == null) { // not yet opened
      open(); // a seal a killed run cut short is dropped
    } else {
      reopenIfClosed();
    }
    write(line);
  }

  /**
   * Opens the digest again if its channel was closed under a write or an fsync (an interrupt of the sealing
   * thread), keeping the size this writer knows: a line whose write failed is cut back to it by the next write.
   */
  private void reopenIfClosed() throws IOException {
    if (!digest.isOpen()) {
      digest = opener.open();
    }
  }

  /**
   * Whether the digest, {@code found} bytes long, holds no more than what this writer knows and the line whose
   * write failed: only then is what lies beyond {@link #size} its own, to be cut back.
   */
  private boolean onlyTheFailedLineBeyond(long found) {
    return unfinishedLine && found >= size && found <= size + unfinishedLength;
  }

  private void write(String line) throws IOException {
    ByteBuffer b = ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8));
    long found = digest.size();
    if (found != size) {
      if (!onlyTheFailedLineBeyond(found)) {
        // not our own cut line: something else wrote the digest (a replacement pipeline's sealer, after this
        // one was abandoned): its seals are not cut away; this seal fails
        throw new IOException("the digest " + path + " is " + found + " bytes, not the " + size
            + " this sealer wrote: it was written by something else");
      }
      digest.truncate(size); // part of a line an earlier failed write left, which could not be cut then
    }
    unfinishedLine = false;
    long lineStart = size;
    long lineLength = b.remaining();
    try {
      while (b.hasRemaining()) {
        size += digest.write(b);
      }
    } catch (IOException e) {
      // the line's bytes may be in the file though the write threw (an interrupt after the write(2) moves the
      // buffer's position but returns no count): back to where the line began, whatever was counted
      long keep = lineStart;
      size = keep;
      try {
        digest.truncate(keep);
      } catch (IOException t) {
        unfinishedLine = true; // cut before the next seal
        unfinishedLength = lineLength;
        e.addSuppressed(t);
      }
      throw e;
    }
  }

  /** fsyncs the digest: the line written is on disk. Opens it again first if its channel was closed. */
  void force() throws IOException {
    reopenIfClosed(); // an fsync covers the file, whichever descriptor asks
    digest.force(false);
  }

  /** Closes the digest, fsynced first unless durability is none. */
  void close() {
    if (digest == null) {
      return;
    }
    boolean interrupted = Thread.interrupted(); // a pending one would close the channel under the cut and fsync
    try {
      closeNow();
    } finally {
      digest = null; // what this writer knew of it goes with it: the next digest is looked at when opened
      size = 0;
      unfinishedLine = false;
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void closeNow() {
    if (unfinishedLine) { // a failed line still in the digest: the next seal, in another digest, will not cut it
      try {
        reopenIfClosed();
        long found = digest.size();
        if (onlyTheFailedLineBeyond(found)) {
          digest.truncate(size);
        } else if (found != size) {
          LOG.warn("nnaudit: {} holds {} bytes where this sealer left {} and a failed seal line: what follows is "
              + "not cut, it was written by something else", path, found, size);
        }
      } catch (IOException | RuntimeException e) {
        LOG.warn("nnaudit: could not cut a failed seal line out of {}", path, e);
      }
    }
    try {
      if (durable) {
        reopenIfClosed(); // the last seal's fsync may have failed with its channel: an fsync covers the file
        digest.force(false);
      }
    } catch (IOException | RuntimeException e) {
      LOG.warn("nnaudit: could not close a digest file cleanly", e);
    } finally {
      try {
        digest.close();
      } catch (IOException e) {
        LOG.debug("nnaudit: closing a digest's channel failed", e);
      }
    }
  }
}
