package io.nnaudit.sink.file;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Objects;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.nnaudit.trail.Lstat;

/**
 * The file the sink appends to: its channel, its identity (device and inode), its size, and where it stands
 * against the path: when the path was last compared with it, and whether what the path holds instead was
 * refused ({@link #stranded}). An append that fails part-way is taken back out ({@link FailedWriteUndo}).
 * Switching to another file fsyncs (unless durability is none) and closes the one it replaces.
 *
 * <p>Appends are copied into one native buffer of the file's own ({@link #staging}) and written from it. A heap
 * buffer handed to a FileChannel would be copied by the JDK into a native buffer that it caches in the writing
 * thread; every handler that leads a write is such a thread, so a NameNode with hundreds of handlers would keep a
 * native copy of up to a whole chunk (1 MiB) in each of them, for the life of the process and outside the heap's
 * bound.
 *
 * <p>Design note. Not thread-safe: it belongs to the sink's writing thread (one at a time, as the sink does),
 * and no other thread reads it. What blocks: the write(2) of an append, and, with a durability other than none,
 * the fsync of a file it stops writing to and of the directory after creating a file. Nothing drops: a failed
 * fsync of a retired file is kept and thrown by the next {@link #force}. Shut-down: {@link #close} closes the
 * channel, after the sink's sealing has sealed the file's end.
 */
final class LiveFile {
  private static final Logger LOG = LoggerFactory.getLogger(RollingFileSink.class);

  private final Path path;
  /** Durability is not none: fsync a file before closing it, and the directory after creating one. */
  private final boolean durable;
  /** Milliseconds from a monotonic source: when the path was compared with the file. */
  private final LongSupplier clock;
  private FileChannel channel;
  private Object fileKey;
  private long size;
  /**
   * After a failed write was taken back out of a file whose channel an interrupt closed: the bytes the file
   * holds that the sink wrote (what the reopened file holds beyond them, someone else wrote meanwhile); -1 when
   * not known (the write could not be taken back).
   */
  private long ownedSize = -1;
  private long lastPathCheck;
  /** The path no longer holds the file we write, and what it holds was refused: no rotation until it does. */
  private boolean stranded;
  /** The fsync of a file closed on rotation or replacement failed; the next {@link #force} reports it. */
  private IOException unreportedForceFailure;
  /**
   * The native buffer appends are written from: at least {@link #STAGING_MIN_BYTES}, grown to the largest chunk
   * appended so far up to {@link #STAGING_MAX_BYTES}; a larger chunk is written in parts of that size.
   */
  private ByteBuffer staging;
  static final int STAGING_MIN_BYTES = 64 * 1024;
  /** The writer's chunks are at most 1 MiB and one record ({@code ChunkWriter.WRITE_CHUNK_BYTES}). */
  static final int STAGING_MAX_BYTES = 2 * 1024 * 1024;

  LiveFile(Path path, boolean durable, LongSupplier clock) {
    this.path = path;
    this.durable = durable;
    this.clock = clock;
  }

  /**
   * Makes {@code next} the file we write; the one it replaces is fsynced (unless durability is none) and closed.
   * A file that ends in part of a record has that line ended, so that the records we append stay whole; the
   * fragment is kept as evidence.
   */
  void switchTo(AuditFileOpener.OpenFile next) throws IOException {
    long length;
    try {
      length = next.channel.size();
    } catch (IOException e) {
      closeQuietly(next.channel);
      throw e;
    }
    FileChannel old = channel;
    channel = next.channel;
    fileKey = next.fileKey;
    size = length;
    lastPathCheck = clock.getAsLong();
    stranded = false;
    if (old != null && old.isOpen()) {
      retire(old);
    }
    if (next.endsInPartialRecord) {
      LOG.warn("nnaudit: {} ends in a partial record (the process was killed in the middle of a write?); "
          + "ending that line before appending", path);
      ByteBuffer nl = ByteBuffer.wrap(new byte[] {'\n'});
      while (nl.hasRemaining()) {
        size += channel.write(nl);
      }
    }
    if (next.created && durable) {
      forceDirectory();
    }
  }

  /**
   * Switches to a new file at the path ({@link #switchTo}) and has {@code sealing} begin it with its first seal,
   * once the switch is made, even if ending a partial line then failed.
   */
  void switchToNewFile(AuditFileOpener.OpenFile next, Sealing sealing) throws IOException {
    try {
      switchTo(next);
    } finally {
      if (writesTo(next)) {
        sealing.startFile(size);
      }
    }
  }

  /** Whether {@code f} is the file we write now. */
  boolean writesTo(AuditFileOpener.OpenFile f) {
    return channel == f.channel;
  }

  /**
   * Appends all of {@code chunk}, whose position moves past what is written; a write that fails is taken back out
   * before the exception is thrown.
   */
  void append(ByteBuffer chunk) throws IOException {
    long before = size;
    try {
      if (chunk.isDirect()) {
        while (chunk.hasRemaining()) {
          size += channel.write(chunk);
        }
      } else {
        appendStaged(chunk);
      }
    } catch (IOException e) {
      try {
        FailedWriteUndo.takeBack(channel, path, fileKey, before);
        size = before;
        ownedSize = before;
      } catch (IOException t) {
        e.addSuppressed(t);
        ownedSize = -1;
        closeQuietly(channel); // reopened on the next write; the size is read afresh then
      }
      throw e;
    }
  }

  /**
   * Writes a heap chunk from {@link #staging}, a part at a time. The chunk's position moves past what the writes
   * returned as written; after a write that failed, past what the failed part had written before it.
   */
  private void appendStaged(ByteBuffer chunk) throws IOException {
    ByteBuffer s = stagingFor(chunk.remaining());
    while (chunk.hasRemaining()) {
      int partStart = chunk.position();
      ByteBuffer part = chunk.duplicate();
      part.limit(partStart + Math.min(s.capacity(), chunk.remaining()));
      s.clear();
      s.put(part);
      s.flip();
      try {
        while (s.hasRemaining()) {
          size += channel.write(s);
        }
      } finally {
        chunk.position(partStart + s.position());
      }
    }
  }

  /**
   * The staging buffer, grown (doubling, up to {@link #STAGING_MAX_BYTES}) when {@code bytes} do not fit. When
   * direct memory is short for a larger one, the buffer in hand writes the chunk in parts; when it is short for
   * the first one, that one is just the chunk's size.
   */
  private ByteBuffer stagingFor(int bytes) {
    if (staging == null || (staging.capacity() < bytes && staging.capacity() < STAGING_MAX_BYTES)) {
      int grown = staging == null ? STAGING_MIN_BYTES : 2 * staging.capacity();
      try {
        staging = ByteBuffer.allocateDirect(Math.min(STAGING_MAX_BYTES, Math.max(grown, bytes)));
      } catch (OutOfMemoryError directMemoryShort) {
        if (staging == null) {
          // As much as the JDK's own copy would take; if even that is short, the write fails as the copy would.
          staging = ByteBuffer.allocateDirect(Math.max(1, Math.min(bytes, STAGING_MAX_BYTES)));
        }
      }
    }
    return staging;
  }

  /** Whether the path still holds the file we write (not a symlink to it). */
  boolean holdsPath() throws IOException {
    return holds(path, fileKey);
  }

  /** Whether {@code path} holds the file {@code fileKey} (not a symlink to it). */
  static boolean holds(Path path, Object fileKey) throws IOException {
    BasicFileAttributes a = Lstat.basic(path);
    return a != null && Objects.equals(a.fileKey(), fileKey);
  }

  /** Whether the path is due to be compared with the file again (once a second). */
  boolean pathCheckDue(long now, long interval) {
    return now - lastPathCheck >= interval;
  }

  /** The path is being compared with the file, at {@code now}. */
  void pathChecked(long now) {
    lastPathCheck = now;
  }

  /**
   * Whether the path holds a file that was refused in place of this one: writing goes on to this one, which is
   * not rotated.
   */
  void stranded(boolean refusedAtPath) {
    stranded = refusedAtPath;
  }

  boolean stranded() {
    return stranded;
  }

  boolean isOpen() {
    return channel != null && channel.isOpen();
  }

  Object fileKey() {
    return fileKey;
  }

  long size() {
    return size;
  }

  /** The bytes the sink wrote in the file after a write taken back (-1: not known); see {@link #append}. */
  long ownedSize() {
    return ownedSize;
  }

  /** The file was reopened and its owned size handed on. */
  void forgetOwnedSize() {
    ownedSize = -1;
  }

  /** fsyncs the file; then throws a failed fsync of a file retired since the last call, if there was one. */
  void force() throws IOException {
    channel.force(false);
    IOException earlier = unreportedForceFailure;
    if (earlier != null) {
      unreportedForceFailure = null;
      throw earlier;
    }
  }

  /**
   * Closes a file we stop writing to (rotated, or moved away), fsyncing it first unless durability is none: no
   * later fsync covers it. A failed fsync is kept for the next {@link #force} to throw, so that it is reported
   * and counted like the failure of any other fsync.
   */
  private void retire(FileChannel old) {
    if (durable) {
      try {
        old.force(false);
      } catch (IOException e) {
        IOException failure = new IOException("could not fsync the audit file that was at " + path
            + " (rotated or moved away) before closing it; its last records may not survive a power cut", e);
        if (unreportedForceFailure == null) {
          unreportedForceFailure = failure;
        } else {
          unreportedForceFailure.addSuppressed(failure);
        }
      }
    }
    try {
      old.close();
    } catch (IOException e) {
      LOG.debug("nnaudit: closing {} failed", path, e);
    }
  }

  private void forceDirectory() {
    Path dir = path.toAbsolutePath().getParent();
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    } catch (IOException e) {
      LOG.warn("nnaudit: could not fsync directory {} after creating {}", dir, path, e);
    }
  }

  /** Closes the channel, if one was opened. */
  void close() throws IOException {
    staging = null; // unreachable with the closed file, even while something still holds this sink
    if (channel != null) {
      channel.close();
    }
  }

  /** Closes the channel, if one was opened, logging a failure at DEBUG. */
  void closeQuietly() {
    closeQuietly(channel);
  }

  void closeQuietly(FileChannel ch) {
    try {
      if (ch != null) {
        ch.close();
      }
    } catch (IOException e) {
      LOG.debug("nnaudit: closing {} failed", path, e);
    }
  }
}
