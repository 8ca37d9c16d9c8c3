package io.nnaudit.sink.file;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Takes a write that failed part-way back out of the audit file, so that the file never ends in half a record
 * (a full disk, say) and the retried chunk does not follow part of itself. Stateless; called by the sink's
 * writing thread.
 */
final class FailedWriteUndo {
  private FailedWriteUndo() {
  }

  /**
   * Cuts the file {@code fileKey} at {@code path} back to {@code before} bytes, through {@code channel} or, when
   * the write's failure closed it, through a channel of its own ({@link #truncateClosedFile}). Throws when it
   * cannot; the file then keeps the partial record.
   */
  static void takeBack(FileChannel channel, Path path, Object fileKey, long before) throws IOException {
    // An interrupt closes a FileChannel in the middle of a write (ClosedByInterruptException), and an
    // interrupted thread cannot use a channel at all: clear the flag while the bytes are taken back out.
    boolean interrupted = Thread.interrupted();
    try {
      if (channel.isOpen()) {
        if (channel.size() > before) {
          channel.truncate(before);
        }
      } else {
        truncateClosedFile(path, fileKey, before);
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * The channel was closed under the write: truncates the same file (the same inode still at the path, checked
   * before and after opening it) through a channel of its own. The next write reopens the file as usual.
   */
  private static void truncateClosedFile(Path path, Object fileKey, long before) throws IOException {
    if (!LiveFile.holds(path, fileKey)) {
      return;
    }
    try (FileChannel t = FileChannel.open(path, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
      if (LiveFile.holds(path, fileKey) && t.size() > before) {
        t.truncate(before);
      }
    }
  }
}
