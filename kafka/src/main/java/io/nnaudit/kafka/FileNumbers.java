package io.nnaudit.kafka;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The numbers the shipper gives the audit files in the stream ({@code nnaudit.file}), and what it remembers of
 * the files by their keys (device and inode) to give them right: a number is never given twice, so that no
 * identity (file, offset) names two different records. Files are numbered in the order they were written; a
 * file that vanished or shrank, or was deleted unshipped, makes the trail go on under a new number above every
 * number given (see docs/kafka.md, "Why files are followed by identity, not by number").
 *
 * <p>Used by the shipper's thread only (through {@link TrailReader} and {@link Checkpointer}, whose entry points
 * assert it); nothing here is read by another thread.
 */
final class FileNumbers {
  /** The highest file number given so far (kept in the checkpoint). */
  private long max;
  /**
   * Where the trail goes on after a file that vanished or shrank (keyed by its key and number): a rewind into
   * such a file continues there, so the decision, its gap and its new file number are made once.
   */
  private final Map<String, ShipPosition> renumbered = new HashMap<>();
  /** Files read to their end since the last checkpoint: their deletion by rotation is no loss. */
  private final Set<String> finishedKeys = new HashSet<>();
  /**
   * Keys of files rotation deleted unshipped: a new file may get the same inode, and must not be read as the
   * deleted one. A key leaves the set when a new file with it is given a number.
   */
  private final Set<String> deadKeys = new HashSet<>();

  void start(long maxGiven) {
    this.max = maxGiven;
  }

  long max() {
    return max;
  }

  /** A new number, above every number given. */
  long next() {
    return ++max;
  }

  /** The position at the start of {@code f}, numbered {@code seq}; a number higher than any before is recorded. */
  ShipPosition number(long seq, SpoolFile f) {
    deadKeys.remove(f.key); // from now on the key names this file
    max = Math.max(max, seq);
    return new ShipPosition(seq, f.key, 0, f.modifiedNanos);
  }

  /** The trail goes on at {@code next} after {@code from}'s file, however often a rewind comes back to it. */
  ShipPosition renumber(ShipPosition from, ShipPosition next) {
    renumbered.put(from.fileKey + "#" + from.fileSeq, next);
    return next;
  }

  /** Where a rewind to {@code a} goes on: {@code a}, or where the trail went on after its file. */
  ShipPosition resumeAt(ShipPosition a) {
    ShipPosition next = renumbered.get(a.fileKey + "#" + a.fileSeq);
    return next != null ? next : a;
  }

  /** Rotation deleted the file {@code key} unshipped. */
  void died(String key) {
    deadKeys.add(key);
  }

  boolean isDead(String key) {
    return deadKeys.contains(key);
  }

  /** The file {@code key} was read to its end. */
  void finished(String key) {
    finishedKeys.add(key);
  }

  boolean isFinished(String key) {
    return finishedKeys.contains(key);
  }

  /** A checkpoint in a newer file was written: files before it go by normal retention now. */
  void forgetFinished() {
    finishedKeys.clear();
  }
}
