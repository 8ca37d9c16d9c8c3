package io.nnaudit.verify;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * Decompresses a gzip file (RFC 1952: one member or several, one after another) and says whether it is whole.
 * Stricter than {@link java.util.zip.GZIPInputStream}, which ignores bytes after a member that do not start a
 * new one: here every byte of the file must belong to a well-formed member (its header, header CRC when
 * present, deflate data, CRC-32 and length), so nothing can be kept in a compressed audit file beside what it
 * decompresses to. Header fields (name, time, comment, extra field) and the compression level are not
 * looked at beyond their form: seals cover the uncompressed bytes. Streams, in 64 KB pieces: memory does not
 * grow with the file. Not thread-safe: one instance, one pass over one file.
 */
final class StrictGunzip {
  private static final int PIECE = 1 << 16;
  private static final int FHCRC = 2;
  private static final int FEXTRA = 4;
  private static final int FNAME = 8;
  private static final int FCOMMENT = 16;
  private static final int RESERVED = 0xe0;

  /** Why a compressed file is not whole gzip, and how far it decompressed. Immutable. */
  static final class Damage {
    /** Whether the file ends before its last member does (cut short), rather than holding bytes that are wrong. */
    final boolean cut;
    /** The uncompressed bytes written before the damage. */
    final long uncompressedBytes;
    /** The offset in the compressed file where the damage was found. */
    final long compressedOffset;
    final String what;

    Damage(boolean cut, long uncompressedBytes, long compressedOffset, String what) {
      this.cut = cut;
      this.uncompressedBytes = uncompressedBytes;
      this.compressedOffset = compressedOffset;
      this.what = what;
    }

    @Override
    public String toString() {
      return what + " (at compressed byte " + compressedOffset + ", after " + uncompressedBytes
          + " uncompressed bytes)";
    }
  }

  private final InputStream in;
  private final byte[] buf = new byte[PIECE];
  private int pos;
  private int lim;
  /** Bytes of the file read before {@link #buf}'s. */
  private long before;
  /** The CRC-32 of the header being read, for its FHCRC. */
  private final CRC32 headerCrc = new CRC32();

  private StrictGunzip(InputStream in) {
    this.in = in;
  }

  /**
   * Writes the uncompressed bytes of the gzip file {@code gz} (not followed through a link) to {@code out}, as
   * far as they can be read; returns null when the file is whole gzip, else what is wrong with it.
   */
  static Damage inflate(Path gz, OutputStream out) throws IOException {
    try (InputStream in = Files.newInputStream(gz, LinkOption.NOFOLLOW_LINKS)) {
      return new StrictGunzip(in).run(out);
    }
  }

  private Damage run(OutputStream out) throws IOException {
    Inflater inf = new Inflater(true);
    byte[] o = new byte[PIECE];
    long written = 0;
    try {
      for (int members = 0;; members++) {
        if (!fill()) {
          return members > 0 ? null : new Damage(true, 0, 0, "the file is empty: no gzip data");
        }
        long start = offset();
        String bad;
        try {
          bad = header();
        } catch (EOFException e) {
          return new Damage(true, written, offset(), "the file ends inside a gzip header");
        }
        if (bad != null) {
          return new Damage(false, written, start, members == 0 ? bad : "bytes after gzip member " + members
              + " that are not another: " + bad);
        }
        inf.reset();
        CRC32 crc = new CRC32();
        long size = 0;
        while (!inf.finished()) {
          if (inf.needsInput()) {
            if (!fill()) {
              return new Damage(true, written, offset(), "the file ends inside the compressed data");
            }
            inf.setInput(buf, pos, lim - pos);
            pos = lim;
          }
          int n;
          try {
            n = inf.inflate(o);
          } catch (DataFormatException e) {
            return new Damage(false, written, offset() - inf.getRemaining(), "the compressed data is not valid "
                + "deflate data: " + e.getMessage());
          }
          if (n == 0 && inf.needsDictionary()) {
            return new Damage(false, written, offset() - inf.getRemaining(), "the compressed data needs a preset "
                + "dictionary, which gzip does not have");
          }
          crc.update(o, 0, n);
          out.write(o, 0, n);
          written += n;
          size += n;
        }
        pos = lim - inf.getRemaining(); // what the deflate data did not use: its trailer, and what follows
        long trailerAt = offset();
        try {
          long wantCrc = int32();
          long wantSize = int32();
          if (wantCrc != crc.getValue()) {
            return new Damage(false, written, trailerAt, "the CRC-32 of gzip member " + (members + 1) + " does not "
                + "match its data");
          }
          if (wantSize != (size & 0xffffffffL)) {
            return new Damage(false, written, trailerAt, "the length of gzip member " + (members + 1) + " does not "
                + "match its data");
          }
        } catch (EOFException e) {
          return new Damage(true, written, offset(), "the file ends inside a gzip trailer");
        }
      }
    } finally {
      inf.end();
    }
  }

  /** Reads a member's header; returns what is wrong with it, or null. */
  private String header() throws IOException {
    headerCrc.reset();
    if (u8() != 0x1f || u8() != 0x8b) {
      return "not gzip data (no gzip magic number)";
    }
    if (u8() != 8) {
      return "a gzip compression method other than deflate";
    }
    int flags = u8();
    if ((flags & RESERVED) != 0) {
      return "reserved gzip header flags set";
    }
    for (int i = 0; i < 6; i++) { // modification time, extra flags, operating system
      u8();
    }
    if ((flags & FEXTRA) != 0) {
      int len = u8() | u8() << 8;
      for (int i = 0; i < len; i++) {
        u8();
      }
    }
    if ((flags & FNAME) != 0) {
      while (u8() != 0) {
        // the original file name, zero-terminated
      }
    }
    if ((flags & FCOMMENT) != 0) {
      while (u8() != 0) {
        // a comment, zero-terminated
      }
    }
    if ((flags & FHCRC) != 0) {
      long want = headerCrc.getValue() & 0xffff;
      if ((u8() | u8() << 8) != want) {
        return "the gzip header's CRC does not match it";
      }
    }
    return null;
  }

  /** One byte of the file; throws {@link EOFException} at its end. */
  private int u8() throws IOException {
    if (!fill()) {
      throw new EOFException();
    }
    int b = buf[pos++] & 0xff;
    headerCrc.update(b);
    return b;
  }

  /** A little-endian unsigned 32-bit number. */
  private long int32() throws IOException {
    return (u8() | u8() << 8 | u8() << 16 | (long) u8() << 24) & 0xffffffffL;
  }

  /** The file's offset of the next byte to read. */
  private long offset() {
    return before + pos;
  }

  /** Makes sure a byte is there to read; false at the end of the file. */
  private boolean fill() throws IOException {
    if (pos < lim) {
      return true;
    }
    before += lim;
    pos = 0;
    lim = 0;
    int n;
    while ((n = in.read(buf, 0, buf.length)) == 0) {
      // read again: a stream returns 0 only for an empty request
    }
    if (n < 0) {
      return false;
    }
    lim = n;
    return true;
  }
}
