package io.nnaudit.verify;

import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import io.nnaudit.seal.SegmentDigest;
import io.nnaudit.trail.TrailNames;

/**
 * The bytes of one file of a trail as written, which its seals cover: a plain file's own bytes, or what a
 * compressed one ({@code file.N.gz}) decompresses to, with what is wrong with its gzip data, if anything.
 *
 * <p>Verify reads those bytes at absolute positions: the walk goes through them in order, but naming a change
 * ({@link ChangeClassifier}, {@link SwappedFiles}, a crash tail's bound) goes back to earlier offsets, many times
 * over, and backwards from an offset. gzip has no random access: decompressing from the start for each such read
 * would cost the file's size for each of them. So a compressed file is decompressed once, in a stream, to a
 * temporary file (under {@code java.io.tmpdir}, readable by its owner alone, unlinked as soon as it is open, so
 * that nothing is left even if verify is killed), and read as a plain file is: memory stays what it is for a
 * plain file, and the disk holds one file's uncompressed bytes at a time, until {@link #close}. Not thread-safe.
 */
final class MemberBytes implements Closeable {
  /** The bytes as written, to read at absolute positions. */
  final FileChannel channel;
  /** What is wrong with a compressed file's gzip data (its bytes then end where the damage is), or null. */
  final StrictGunzip.Damage damage;

  private MemberBytes(FileChannel channel, StrictGunzip.Damage damage) {
    this.channel = channel;
    this.damage = damage;
  }

  /** Opens the file at {@code path} (not followed through a link), decompressing it when its name ends in .gz. */
  static MemberBytes open(Path path) throws IOException {
    if (!TrailNames.isCompressed(path.getFileName().toString())) {
      return new MemberBytes(FileChannel.open(path, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS), null);
    }
    Path tmp = Files.createTempFile("nnaudit-verify-", ".uncompressed"); // mode 600 where POSIX
    try {
      StrictGunzip.Damage damage;
      try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(tmp), 1 << 16)) {
        damage = StrictGunzip.inflate(path, out);
      }
      FileChannel ch = FileChannel.open(tmp, StandardOpenOption.READ, StandardOpenOption.DELETE_ON_CLOSE);
      try {
        Files.deleteIfExists(tmp); // unlinked now where the system allows it; else at close
      } catch (IOException e) {
        // DELETE_ON_CLOSE removes it
      }
      return new MemberBytes(ch, damage);
    } catch (IOException | RuntimeException | Error e) {
      Files.deleteIfExists(tmp);
      throw e;
    }
  }

  /** The records (lines) in the file at {@code path} as written, decompressed in a stream when it is a .gz. */
  static long countLines(Path path) throws IOException {
    if (!TrailNames.isCompressed(path.getFileName().toString())) {
      try (MemberBytes b = open(path)) {
        return AuditBytes.countLines(b.channel, 0, b.channel.size());
      }
    }
    SegmentDigest d = new SegmentDigest();
    StrictGunzip.inflate(path, new OutputStream() {
      @Override
      public void write(int b) {
        write(new byte[] {(byte) b}, 0, 1);
      }

      @Override
      public void write(byte[] b, int off, int len) {
        d.update(b, off, len);
      }
    });
    return d.records();
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
