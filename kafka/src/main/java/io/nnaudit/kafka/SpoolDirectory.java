package io.nnaudit.kafka;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.nnaudit.ship.SpoolGuard;
import io.nnaudit.trail.DatedNames;
import io.nnaudit.trail.FileStat;
import io.nnaudit.trail.Lstat;
import io.nnaudit.trail.RotatedFiles;
import io.nnaudit.trail.TrailNames;

/**
 * The audit files a shipper reads, oldest first: {@code file.N}, ..., {@code file.1}, then the live {@code file}
 * (the rotation of {@code RollingFileSink}). Files are told apart by device and inode, which rotation's renames
 * keep, never by name, which every rotation changes. Only regular files (no links) owned by the owner of the
 * live file are listed: a file planted beside it by another user is not this NameNode's trail. A compressed
 * rotated file ({@code file.N.gz}) is never listed: the sink compresses only files the shipper has finished, and
 * the {@code .gz} is a new inode, which would look like a file not yet shipped.
 *
 * <p>A listing is whole: it is taken between two equal marks of the {@link SpoolGuard}'s rotation count, so it
 * never sees a rotation half done (a file twice, or one missing between two renames).
 *
 * <p>Design note. Safe from any thread, and used from two: the shipper's thread lists the files and opens
 * digests; the metrics thread lists them for the lag ({@code KafkaShipper.stats}). A listing reads only the file
 * system and the guard's rotation mark (atomic), and keeps nothing: it may wait (parked, 200 us at a time)
 * while a rotation renames files, never on a lock. An interrupt pending or arriving does not cut that wait short
 * (it would take a listing of a rotation half done): it is cleared for each park and set again on return. The fields are final; the one that changes, the set of
 * digests refused and logged ({@link #openDigest}, the shipper's thread), is a concurrent set.
 */
final class SpoolDirectory {
  private static final Logger LOG = LoggerFactory.getLogger(SpoolDirectory.class);
  private final Path live;
  private final int maxBackups;
  /** The names of rotated files; null: numbered. */
  private final DatedNames dated;
  private final SpoolGuard guard;
  /** Digests refused by {@link #openDigest}, each logged once. */
  private final Set<String> refusedDigests = ConcurrentHashMap.newKeySet();

  SpoolDirectory(Path live, int maxBackups, SpoolGuard guard) {
    this(live, null, maxBackups, guard);
  }

  /** For rotated files named by {@code dated} (null: numbered). */
  SpoolDirectory(Path live, DatedNames dated, int maxBackups, SpoolGuard guard) {
    this.live = live;
    this.dated = dated;
    this.maxBackups = maxBackups;
    this.guard = guard;
  }

  Path live() {
    return live;
  }

  /**
   * The files there now, oldest first; the live file last, if it exists. The backups are those rotation's own
   * {@link RotatedFiles#list} finds. Retried while a rotation renames files.
   */
  List<SpoolFile> list() throws IOException {
    boolean interrupted = false;
    try {
      List<SpoolFile> files = null;
      for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        long before = guard.rotationMark();
        if ((before & 1) == 0) {
          files = scan();
          if (guard.rotationMark() == before) {
            if (distinct(files)) {
              return files;
            }
            // Two names of one file while this guard saw no rotation: a hard link made by hand, or (at a
            // re-initialize, for a shipper still ending) a rotation under another pipeline's guard. A rotation is a
            // few renames: after a few ms of scans that all find the repeat, it is a link; take each file once.
            if (attempt >= LINK_ATTEMPTS) {
              return withoutRepeats(files);
            }
          }
        }
        interrupted |= nap(); // a rotation is a few renames
      }
      return files == null ? scan() : withoutRepeats(files); // rotations without end: take what there is
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt(); // for the caller to see, once the listing is whole
      }
    }
  }

  /**
   * Waits 200 µs for a rotation's renames, a pending interrupt notwithstanding: with the flag set a park returns at
   * once, and the bounded tries of a listing would run out in a millisecond and take a rotation half done (a file
   * missing between two renames, which the reader would announce as deleted). The flag is cleared for the park;
   * returns whether one was pending, for the caller to set again when it is done.
   */
  private static boolean nap() {
    boolean interrupted = Thread.interrupted();
    LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
    return Thread.interrupted() || interrupted;
  }

  /** Scans, 200 us apart, that find one file under two names before it is taken as a hard link (about 5 ms). */
  private static final int LINK_ATTEMPTS = 25;

  /** Attempts at a whole listing (about 2 s of rotations back to back) before taking what there is. */
  private static final int MAX_ATTEMPTS = 10_000;

  /**
   * Each file once, at its last name in {@code files} (oldest first, the live file last): a rotated name that is a
   * hard link of the live file is passed over, and the live file stays the one being written.
   */
  private static List<SpoolFile> withoutRepeats(List<SpoolFile> files) {
    Set<String> keys = new HashSet<>();
    List<SpoolFile> out = new ArrayList<>();
    for (int i = files.size() - 1; i >= 0; i--) {
      if (keys.add(files.get(i).key)) {
        out.add(files.get(i));
      }
    }
    Collections.reverse(out);
    return out;
  }

  private List<SpoolFile> scan() throws IOException {
    SpoolFile l = look(live);
    int owner = l == null ? SpoolFile.ANYONE : l.uid;
    List<SpoolFile> out = new ArrayList<>();
    for (RotatedFiles.Backup b : RotatedFiles.list(live, dated, maxBackups)) { // newest first
      if (!b.compressed && isRegularFileOf(b.attributes, owner)) { // a .gz: a file shipped already, a new inode
        out.add(spoolFile(b.path, b.attributes, false));
      }
    }
    Collections.reverse(out); // oldest first
    if (l != null) {
      out.add(l);
    }
    return out;
  }

  private static boolean distinct(List<SpoolFile> files) {
    Set<String> keys = new HashSet<>();
    for (SpoolFile f : files) {
      if (!keys.add(f.key)) {
        return false;
      }
    }
    return true;
  }

  /** The live file now, or null if there is none. */
  SpoolFile liveFile() throws IOException {
    return look(live);
  }

  /** What {@link #openDigest} found. Immutable. */
  static final class DigestLookup {
    static final DigestLookup NONE = new DigestLookup(null, null, true);
    static final DigestLookup UNSETTLED = new DigestLookup(null, null, false);
    /** The digest, open for reading; null when the file has none. */
    final FileChannel channel;
    /** The digest's device and inode, as text ({@link FileStat#fileKey}), with {@link #channel}. */
    final String key;
    /** False when rotations kept renaming the files: nothing is known, look again later. */
    final boolean settled;

    DigestLookup(FileChannel channel, String key, boolean settled) {
      this.channel = channel;
      this.key = key;
      this.settled = settled;
    }
  }

  /**
   * Opens the digest of the audit file {@code key} ({@code <its name now>.seals}): a regular file (not a link)
   * owned by the owner of that file, found while no rotation renamed anything, so that it is that file's digest
   * and not the one of the file that had the name before. NONE when the file has no digest or no name in the
   * rotation (deleted); UNSETTLED when rotations kept renaming the files.
   */
  DigestLookup openDigest(String key) throws IOException {
    boolean interrupted = false;
    try {
      for (int attempt = 0; attempt < DIGEST_ATTEMPTS; attempt++) {
        long before = guard.rotationMark();
        if ((before & 1) == 0) {
          SpoolFile f = liveFile();
          if (f == null || !f.key.equals(key)) {
            List<SpoolFile> files = list();
            int i = indexOf(files, key);
            if (i < 0) {
              return DigestLookup.NONE;
            }
            f = files.get(i);
          }
          Path digest = TrailNames.digest(f.path);
          FileStat a = Lstat.stat(digest);
          FileChannel ch = null;
          if (a != null && ours(digest, a, f)) {
            try {
              ch = FileChannel.open(digest, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
            } catch (NoSuchFileException e) {
              ch = null;
            }
          }
          FileStat after = a == null ? null : Lstat.stat(digest);
          boolean same = a == null || ch == null || after != null && a.fileKey().equals(after.fileKey());
          if (same && guard.rotationMark() == before && key.equals(Lstat.key(f.path))) {
            return ch == null ? DigestLookup.NONE : new DigestLookup(ch, String.valueOf(a.fileKey()), true);
          }
          if (ch != null) {
            ch.close();
          }
        }
        interrupted |= nap(); // a rotation is a few renames
      }
      return DigestLookup.UNSETTLED;
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * The digest {@code digestKey} (a {@link DigestLookup#key}) of the audit file {@code fileKey}, found and opened
   * again as {@link #openDigest} found it at first, after an interrupt closed its channel; null if it is not there
   * as it was: not settled, gone, or another inode at its name (a digest replaced is not read as the one before).
   */
  FileChannel reopenDigest(String fileKey, String digestKey) throws IOException {
    DigestLookup d = openDigest(fileKey);
    if (d.channel != null && digestKey.equals(d.key)) {
      return d.channel;
    }
    if (d.channel != null) {
      d.channel.close();
    }
    return null;
  }

  /** Attempts at finding a digest while rotations rename the files (about 0.1 s of them back to back). */
  private static final int DIGEST_ATTEMPTS = 500;

  /**
   * Whether the file at the live file's digest name ({@code <file>.seals}) is one {@link #openDigest} would read
   * as the digest of a file of the user {@code uid}: a regular file of that owner. A planted file, link or FIFO
   * there is not a digest still to come.
   */
  boolean liveDigestReadable(int uid) throws IOException {
    FileStat a = Lstat.stat(TrailNames.digest(live));
    return a != null && isRegularFileOf(a, uid);
  }

  /** Whether {@code digest} may be read as the digest of {@code f}: a regular file of the same owner. */
  private boolean ours(Path digest, FileStat a, SpoolFile f) {
    if (isRegularFileOf(a, f.uid)) {
      return true;
    }
    if (refusedDigests.size() < 1000 && refusedDigests.add(String.valueOf(a.fileKey()))) {
      LOG.warn("nnaudit: {} is not read as the digest of {}: it is {}", digest, f.path,
          a.isRegularFile() ? "owned by uid " + Integer.toUnsignedString(a.uid()) + ", not by uid "
          + Integer.toUnsignedString(f.uid) : "not a regular file");
    }
    return false;
  }

  /** A regular file (not a link, FIFO, ...) owned by the user {@code uid}; by anyone if {@link SpoolFile#ANYONE}. */
  private static boolean isRegularFileOf(FileStat a, int uid) {
    return a.isRegularFile() && (uid == SpoolFile.ANYONE || uid == a.uid());
  }

  /** The live file: a regular file at {@code p}, or null. */
  private static SpoolFile look(Path p) throws IOException {
    FileStat a = Lstat.stat(p);
    return a != null && a.isRegularFile() ? spoolFile(p, a, true) : null;
  }

  private static SpoolFile spoolFile(Path p, FileStat a, boolean isLive) {
    return new SpoolFile(p, Lstat.key(a), a.size(), a.lastModifiedTime().to(TimeUnit.NANOSECONDS), isLive,
        a.uid());
  }

  /** Index in {@code files} of the file {@code key}, or -1. */
  static int indexOf(List<SpoolFile> files, String key) {
    for (int i = 0; i < files.size(); i++) {
      if (files.get(i).key.equals(key)) {
        return i;
      }
    }
    return -1;
  }
}
