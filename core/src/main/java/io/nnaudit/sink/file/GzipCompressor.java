package io.nnaudit.sink.file;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.nnaudit.ship.SpoolGuard;
import io.nnaudit.throttle.RateLimitedLog;
import io.nnaudit.trail.Lstat;
import io.nnaudit.trail.DatedNames;
import io.nnaudit.trail.RotatedFiles;
import io.nnaudit.trail.TrailNames;

/**
 * {@code nnaudit.file.compress=gzip}: compresses the rotated files of the live file to {@code file.N.gz}, oldest
 * first, each that {@link CompressibleFiles} allows: the gzip goes to a temporary name ({@link GzipCopy}), then
 * takes its name and the plain file goes ({@link CompressionCommit}). It looks after each rotation
 * ({@link #wake}) and every {@link #POLL_MS} otherwise (a shipper that finished a file says nothing). A
 * compression that fails (disk full, an immutable file) leaves the plain file as it was, is counted, logged at
 * most once a minute, and tried again {@link #RETRY_MS} later.
 *
 * <p>Design note. One thread of its own, a daemon at {@link Thread#MIN_PRIORITY}, never a handler's or the
 * writer's. What blocks: that thread reads and writes whole files and fsyncs them, and waits for the
 * {@link TrailRenameLock} while a rotation holds it; the sink's writing thread only calls {@link #wake}, which
 * takes the monitor for a moment (the compressor's thread holds it only to wait on it). What drops: nothing; a
 * file not compressed stays plain. Shut-down ({@link #stop}, from the sink's close, before sealing and the live
 * file close): interrupt, then a join of at most {@link #JOIN_MS}; a copy stopped half-way, or complete but not
 * yet renamed, is deleted (a kill leaves it under its temporary name for the next start to delete), and a commit
 * stopped after the rename leaves both files (the next start keeps the {@code .gz}). Who owns what:
 * {@link #woken} is guarded by {@link #monitor}; {@link #retryAt} belongs to the compressor's thread;
 * {@link #thread} (volatile) is set by the thread that builds the sink and read by the one that closes it;
 * {@link #counters} are written by the compressor's thread and read by anyone.
 */
final class GzipCompressor {
  private static final Logger LOG = LoggerFactory.getLogger(RollingFileSink.class);
  /** How often rotated files are looked at when no rotation wakes the compressor. */
  static final long POLL_MS = 30_000;
  /** How long a file whose compression failed is left before it is tried again. */
  static final long RETRY_MS = 60_000;
  /** The longest the sink's close waits for the compressor's thread to stop. */
  /** How soon a file left for the next look (rotations kept moving it) is looked at again. */
  static final long LOOK_AGAIN_MS = 1_000;
  static final long JOIN_MS = 5_000;
  /** Looks for a file that rotations keep moving before it is left to the next pass. */
  private static final int MOVED_ATTEMPTS = 10;

  private final Path live;
  private final FileAttribute<Set<PosixFilePermission>> mode;
  private final SpoolGuard spool;
  /** The names of rotated files; null: numbered. */
  private final DatedNames dated;
  private final TrailRenameLock names;
  private final CompressionCounters counters;
  private final RateLimitedLog failures = new RateLimitedLog(LOG, 60_000);
  private final Object monitor = new Object();
  private boolean woken;
  /** Key of a file whose compression failed, and when (nanoTime) it may be tried again. */
  private final Map<String, Long> retryAt = new HashMap<>();
  private volatile Thread thread;

  GzipCompressor(Path live, DatedNames dated, FileAttribute<Set<PosixFilePermission>> mode, SpoolGuard spool,
      TrailRenameLock names, CompressionCounters counters) {
    this.live = live.toAbsolutePath();
    this.dated = dated;
    this.mode = mode;
    this.spool = spool;
    this.names = names;
    this.counters = counters;
  }

  /**
   * Starts the thread; if it cannot start (no native thread left), rotated files stay plain, which loses
   * nothing, and that is logged.
   */
  void start() {
    Thread t = new Thread(this::run, "nnaudit-compressor " + live.getFileName());
    t.setDaemon(true);
    t.setPriority(Thread.MIN_PRIORITY);
    try {
      t.start();
      thread = t;
    } catch (Error e) { // OutOfMemoryError: unable to create native thread
      LOG.error("nnaudit: could not start the compression of rotated files of {}; they stay uncompressed", live, e);
    }
  }

  /** A rotation happened: look at the rotated files now. Waits for nothing but the monitor, held for a moment. */
  void wake() {
    synchronized (monitor) {
      woken = true;
      monitor.notifyAll();
    }
  }

  /** Stops the thread: interrupts it and waits for it at most {@link #JOIN_MS}. */
  void stop() {
    Thread t = thread;
    if (t == null) {
      return;
    }
    t.interrupt();
    try {
      t.join(JOIN_MS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (t.isAlive()) {
      LOG.warn("nnaudit: the compression of {} did not stop within {} ms; what it leaves is finished at the next "
          + "start", live, JOIN_MS);
    }
  }

  private void run() {
    try {
      while (!Thread.currentThread().isInterrupted()) {
        boolean leftBehind = compressWhatIsDue();
        synchronized (monitor) {
          if (!woken) { // a file a rotation kept moving is looked at again a second later, not at the next poll
            monitor.wait(leftBehind ? LOOK_AGAIN_MS : POLL_MS);
          }
          woken = false;
        }
      }
    } catch (InterruptedException e) {
      // the sink is closing
    } catch (RuntimeException | Error e) {
      LOG.error("nnaudit: the compression of rotated files of {} stopped; they stay uncompressed", live, e);
    }
  }

  /**
   * Compresses each rotated file that may be compressed now, oldest first; returns whether one was left for the
   * next look without failing (rotations kept moving it, or it moved between the copy and the commit).
   */
  private boolean compressWhatIsDue() throws InterruptedException {
    List<RotatedFiles.Backup> files;
    try {
      files = CompressibleFiles.oldestFirst(live, dated, spool);
    } catch (IOException e) {
      counters.failed();
      failures.error("could not list the rotated files of " + live + " to compress them", e);
      return false;
    }
    boolean leftBehind = false;
    Set<String> listed = new HashSet<>();
    for (RotatedFiles.Backup b : files) {
      if (Thread.currentThread().isInterrupted()) {
        throw new InterruptedException();
      }
      String key = Lstat.key(b.attributes);
      listed.add(key);
      Long at = retryAt.get(key);
      if (at == null || System.nanoTime() - at >= 0) {
        leftBehind |= !compress(b, key);
      }
    }
    retryAt.keySet().retainAll(listed); // files gone are forgotten
    return leftBehind;
  }

  /**
   * The sink is closing: a copy that has not taken its name goes (after the rename the name is the .gz's, and
   * nothing is at {@code temp}).
   */
  private static void deleteUnnamed(Path temp) {
    try {
      Files.deleteIfExists(temp);
    } catch (IOException e) {
      LOG.warn("nnaudit: could not delete {}, a compression stopped by the close; the next start deletes it", temp);
    }
  }

  /** Compresses one file; false when it was left for the next look (not a failure, which is retried later). */
  private boolean compress(RotatedFiles.Backup listed, String key) throws InterruptedException {
    Path temp = TrailNames.compressing(live, Long.toString(System.currentTimeMillis()));
    RotatedFiles.Backup b = listed;
    try {
      GzipCopy.Copy copy = null;
      for (int attempt = 0; copy == null; attempt++) {
        try {
          copy = GzipCopy.compress(b, temp, mode);
        } catch (GzipCopy.MovedException e) { // a rotation moved it up: found again by its key
          b = CompressibleFiles.find(live, dated, spool, key);
          if (b == null || attempt >= MOVED_ATTEMPTS) {
            return b == null; // gone or no longer to be compressed; or rotations without end: the next look
          }
        }
      }
      Path gz = CompressionCommit.commit(live, dated, copy, spool, names);
      if (gz == null) {
        return false; // moved out of reach meanwhile (a shipper went back to it, say): looked at again
      }
      counters.compressed(copy.bytesBefore, copy.bytesAfter);
      retryAt.remove(key);
      LOG.debug("nnaudit: compressed {} ({} bytes) to {} ({} bytes)", b.path, copy.bytesBefore, gz,
          copy.bytesAfter);
      return true;
    } catch (IOException | RuntimeException e) {
      if (Thread.currentThread().isInterrupted()) {
        deleteUnnamed(temp);
        throw new InterruptedException();
      }
      counters.failed();
      retryAt.put(key, System.nanoTime() + RETRY_MS * 1_000_000);
      failures.error("could not compress " + b.path + " (kept as it is, tried again in " + RETRY_MS / 1000
          + " s; " + counters.failures() + " failed compressions since start-up)", e);
      return true;
    }
  }
}
