package io.nnaudit.seal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fsync of the audit file before a seal: a seal must never reach the disk before the bytes it vouches for,
 * or a power cut would leave a seal over bytes the file no longer holds. Through a read-only channel of the
 * Sealer's own, which no interrupt of a handler thread can close (fsync covers the file, whichever descriptor
 * asks); none when durability is none.
 *
 * <p>Design note. Blocks in the fsync. Every field belongs to the thread that runs the {@link Sealer}; a stray
 * interrupt of that thread that closes the channel fails the fsync, and the next one opens the channel again
 * (the Sealer takes the fsync again at once, the interrupt cleared: {@link Sealer}). Shut-down: {@link #close}
 * with the digest.
 */
final class AuditFsync {
  private static final Logger LOG = LoggerFactory.getLogger(Sealer.class);

  private final boolean durable;
  /** The audit file, read-only; null when durability is none or it is not open. */
  private FileChannel audit;
  /** Where the live audit file is, for opening {@link #audit} again. */
  private Path path;

  AuditFsync(boolean durable) {
    this.durable = durable;
  }

  /** The live audit file is {@code auditPath} from now on: opens it for reading, unless durability is none. */
  void open(Path auditPath) throws IOException {
    close();
    path = auditPath;
    if (durable) {
      audit = FileChannel.open(auditPath, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
    }
  }

  /** fsyncs the audit file, unless durability is none. */
  void force() throws IOException {
    if (!durable) {
      return;
    }
    if (audit == null || !audit.isOpen()) { // not opened, or closed by a stray interrupt: opened again
      open(path);
    }
    audit.force(false);
  }

  void close() {
    try {
      if (audit != null) {
        audit.close();
      }
    } catch (IOException e) {
      LOG.debug("nnaudit: closing a channel failed", e);
    }
    audit = null;
  }
}
