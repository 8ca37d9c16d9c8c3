package io.nnaudit.kafka;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.FileInputStream;
import java.io.FileNotFoundException;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Properties;

/**
 * The shipper's checkpoint file: the position before which Kafka has acknowledged every record, and the number
 * and head of the file it is in. Written whole by rename (a temporary file, fsynced, renamed over the old one,
 * the directory fsynced), so a crash leaves either the old checkpoint or the new one. Read and written through
 * streams, which an interrupt of the thread does not close, as it closes a {@link FileChannel}; only the
 * directory's fsync needs a channel, and one an interrupt closed is thrown as such, so that the fsync is made
 * again ({@link Checkpointer}). Text, one
 * {@code name=value} per line, so an operator can read it. Immutable: loaded by the thread that makes the
 * shipper (and again by the shipper's thread after a shipper before it ended), written by the shipper's thread
 * ({@link Checkpointer}).
 *
 * <p>The file is found again by its device and inode, and checked by a hash of its first bytes, since an inode
 * number can be reused once its file is deleted.
 */
final class ShipCheckpoint {
  /** Bytes of a file's beginning whose hash identifies it. */
  static final int HEAD_BYTES = 4096;

  final ShipPosition position;
  /**
   * The highest file number given so far: after a gap, files are numbered above it, so that no number (and no
   * record identity) is given twice.
   */
  final long maxFileSeq;
  /** Bytes at the file's start that {@link #headHash} covers. */
  final int headLength;
  final String headHash;
  /** When it was written, ms since the epoch. */
  final long savedMillis;
  /**
   * Gap records not yet acknowledged when it was written, oldest first: the next start sends them again, with
   * the same identity (file number, offset and text), so that no loss goes unannounced through a restart.
   */
  final List<PendingGap> gaps;

  /** A gap record to send: where it is announced and what it says. Immutable. */
  static final class PendingGap {
    final long fileSeq;
    final long offset;
    final String text;

    PendingGap(long fileSeq, long offset, String text) {
      this.fileSeq = fileSeq;
      this.offset = offset;
      this.text = text;
    }
  }

  ShipCheckpoint(ShipPosition position, long maxFileSeq, int headLength, String headHash, long savedMillis,
      List<PendingGap> gaps) {
    this.gaps = Collections.unmodifiableList(new ArrayList<>(gaps));
    this.position = position;
    this.maxFileSeq = Math.max(maxFileSeq, position.fileSeq);
    this.headLength = headLength;
    this.headHash = headHash;
    this.savedMillis = savedMillis;
  }

  /** The checkpoint in {@code file}, or null if there is none; throws if it is there but unreadable. */
  static ShipCheckpoint load(File file) throws IOException {
    byte[] bytes;
    try (FileInputStream in = new FileInputStream(file)) {
      bytes = readAll(in);
    } catch (FileNotFoundException e) {
      if (OpenFailure.missing(file.toPath(), e)) {
        return null;
      }
      throw e; // there, but not to be read
    }
    Properties p = new Properties();
    p.load(new StringReader(new String(bytes, StandardCharsets.UTF_8)));
    try {
      long seq = Long.parseLong(p.getProperty("file.seq"));
      List<PendingGap> gaps = new ArrayList<>();
      int n = Integer.parseInt(p.getProperty("gap.count", "0"));
      for (int i = 0; i < n; i++) {
        gaps.add(new PendingGap(Long.parseLong(p.getProperty("gap." + i + ".file")),
            Long.parseLong(p.getProperty("gap." + i + ".offset")), p.getProperty("gap." + i + ".text")));
      }
      ShipPosition at = new ShipPosition(seq, p.getProperty("file.key"), Long.parseLong(p.getProperty("offset")),
          Long.parseLong(p.getProperty("file.modified.nanos")));
      return new ShipCheckpoint(at, Long.parseLong(p.getProperty("file.seq.max", "" + seq)),
          Integer.parseInt(p.getProperty("file.head.length")), p.getProperty("file.head.sha256"),
          Long.parseLong(p.getProperty("saved.at.ms")), gaps);
    } catch (RuntimeException e) {
      throw new IOException("nnaudit: the Kafka checkpoint " + file + " is damaged (" + e + "); move it away to "
          + "ship the spool from its oldest file again", e);
    }
  }

  /** Writes it to {@code file}, whole, by rename (see the class note); {@link #syncDirectory} makes that durable. */
  void save(File file, String source) throws IOException {
    Properties p = new Properties();
    p.setProperty("file.seq", Long.toString(position.fileSeq));
    p.setProperty("file.seq.max", Long.toString(maxFileSeq));
    p.setProperty("file.key", position.fileKey);
    p.setProperty("file.modified.nanos", Long.toString(position.modifiedNanos));
    p.setProperty("file.head.length", Integer.toString(headLength));
    p.setProperty("file.head.sha256", headHash);
    p.setProperty("offset", Long.toString(position.offset));
    p.setProperty("saved.at.ms", Long.toString(savedMillis));
    p.setProperty("gap.count", Integer.toString(gaps.size()));
    for (int i = 0; i < gaps.size(); i++) {
      p.setProperty("gap." + i + ".file", Long.toString(gaps.get(i).fileSeq));
      p.setProperty("gap." + i + ".offset", Long.toString(gaps.get(i).offset));
      p.setProperty("gap." + i + ".text", gaps.get(i).text);
    }
    StringWriter w = new StringWriter();
    p.store(w, "nnaudit Kafka shipper: Kafka has acknowledged every record of " + source + " before this position");
    String text = w.toString();
    Path target = file.toPath();
    Path tmp = target.resolveSibling(target.getFileName() + ".tmp-" + Thread.currentThread().getId());
    try (FileOutputStream out = new FileOutputStream(tmp.toFile())) { // created or truncated
      out.write(text.getBytes(StandardCharsets.UTF_8));
      out.getFD().sync();
    }
    Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  /**
   * Fsyncs the directory of {@code file}, so that a rename into it outlasts a crash of the machine. Throws only
   * if an interrupt closed the channel (the fsync may not have been made): some file systems refuse to fsync a
   * directory, and the rename is atomic all the same.
   */
  static void syncDirectory(File file) throws ClosedByInterruptException {
    try (FileChannel d = FileChannel.open(file.getAbsoluteFile().toPath().getParent(), StandardOpenOption.READ)) {
      d.force(true);
    } catch (ClosedByInterruptException e) {
      throw e;
    } catch (IOException e) {
      // refused by the file system
    }
  }

  private static byte[] readAll(InputStream in) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] b = new byte[8192];
    for (int n; (n = in.read(b)) > 0; ) {
      out.write(b, 0, n);
    }
    return out.toByteArray();
  }

  /** Whether the stream's first bytes hash to what was recorded (the same file, not a reused inode). */
  boolean sameHead(InputStream head) throws IOException {
    return headHash.equals(FileHead.sha256(head, headLength));
  }
}
