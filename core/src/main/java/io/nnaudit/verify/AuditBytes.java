package io.nnaudit.verify;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

import io.nnaudit.seal.Seal;
import io.nnaudit.seal.SegmentDigest;

/**
 * Reading an audit file's bytes for verify: the digest of a byte range, whether a range holds what a seal says,
 * where lines end and how many there are. Stateless: every read is at an absolute position of the channel given.
 */
final class AuditBytes {
  private AuditBytes() {
  }

  /** The digest of the bytes {@code from} to {@code to} (exclusive). */
  static SegmentDigest digestOf(FileChannel ch, long from, long to) throws IOException {
    SegmentDigest d = new SegmentDigest();
    d.update(ch, from, to);
    return d;
  }

  /** Whether the file, {@code size} bytes long, holds at {@code s}'s range what {@code s} sealed. */
  static boolean rangeMatches(FileChannel ch, long size, Seal s) throws IOException {
    if (s.to > size) {
      return false;
    }
    return matches(digestOf(ch, s.from, s.to), s);
  }

  /** Whether digest {@code d} is what {@code s} sealed: its records, checksum sum and SHA-256. */
  static boolean matches(SegmentDigest d, Seal s) {
    return d.records() == s.records && d.lineSum() == s.lineSum && Seal.hex(d.peekSha256()).equals(s.sha256);
  }

  /** The byte at {@code pos}, or 0 past the end. */
  static byte byteAt(FileChannel ch, long pos) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(1);
    return ch.read(b, pos) == 1 ? b.get(0) : 0;
  }

  /** The records (lines) in the bytes {@code from} to {@code to}. */
  static long countLines(FileChannel ch, long from, long to) throws IOException {
    return digestOf(ch, from, to).records();
  }

  /** The records (lines) in file {@code f} as written (decompressed, for a .gz), not followed through a link. */
  static long countLines(Path f) throws IOException {
    return MemberBytes.countLines(f);
  }
}
