package io.nnaudit.seal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.CRC32;
import java.util.zip.Deflater;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

import io.nnaudit.trail.TrailNames;

/**
 * Compressed audit files as a test makes them: {@code file.N} to {@code file.N.gz} the way a compressor does
 * (GZIPOutputStream), or gzip written by hand at another level, with header fields GZIPOutputStream never
 * writes (a name, a comment, an extra field, a time, a header CRC) and in several members. Stateless.
 */
final class GzipFiles {
  private GzipFiles() {
  }

  /** Compresses {@code plain} to {@code plain.gz} with GZIPOutputStream and deletes {@code plain}. */
  static Path compress(Path plain) throws IOException {
    Path gz = TrailNames.compressed(plain);
    Files.write(gz, gzip(Files.readAllBytes(plain)));
    Files.delete(plain);
    return gz;
  }

  /** {@code b} as GZIPOutputStream compresses it. */
  static byte[] gzip(byte[] b) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream z = new GZIPOutputStream(out)) {
      z.write(b);
    }
    return out.toByteArray();
  }

  /** The bytes {@code gz} decompresses to. */
  static byte[] gunzip(Path gz) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPInputStream in = new GZIPInputStream(Files.newInputStream(gz))) {
      byte[] buf = new byte[8192];
      int n;
      while ((n = in.read(buf)) > 0) {
        out.write(buf, 0, n);
      }
    }
    return out.toByteArray();
  }

  /**
   * {@code b} as gzip at deflate {@code level}, split into {@code members} members one after another, each with
   * a file name, a comment, an extra field, a modification time and a header CRC.
   */
  static byte[] gzipOtherwise(byte[] b, int level, int members) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int step = Math.max(1, (b.length + members - 1) / members);
    int from = 0;
    do {
      int to = Math.min(b.length, from + step);
      member(out, b, from, to, level);
      from = to;
    } while (from < b.length);
    return out.toByteArray();
  }

  private static void member(ByteArrayOutputStream out, byte[] b, int from, int to, int level) throws IOException {
    ByteArrayOutputStream h = new ByteArrayOutputStream();
    h.write(new byte[] {0x1f, (byte) 0x8b, 8, 2 | 4 | 8 | 16}); // FHCRC, FEXTRA, FNAME, FCOMMENT
    writeInt(h, 1_700_000_000); // a modification time
    h.write(new byte[] {0, 3}); // extra flags, OS: Unix
    byte[] extra = "AB\u0002\u0000xy".getBytes(StandardCharsets.ISO_8859_1); // one subfield, 2 bytes
    h.write(extra.length);
    h.write(0);
    h.write(extra);
    h.write("audit.log.copy\u0000".getBytes(StandardCharsets.ISO_8859_1));
    h.write("recompressed by hand\u0000".getBytes(StandardCharsets.ISO_8859_1));
    CRC32 hc = new CRC32();
    hc.update(h.toByteArray());
    h.write((int) hc.getValue() & 0xff);
    h.write((int) (hc.getValue() >> 8) & 0xff);
    out.write(h.toByteArray());
    Deflater d = new Deflater(level, true);
    d.setInput(b, from, to - from);
    d.finish();
    byte[] buf = new byte[8192];
    while (!d.finished()) {
      int n = d.deflate(buf);
      out.write(buf, 0, n);
    }
    d.end();
    CRC32 crc = new CRC32();
    crc.update(b, from, to - from);
    writeInt(out, (int) crc.getValue());
    writeInt(out, to - from);
  }

  private static void writeInt(OutputStream out, int v) throws IOException {
    for (int i = 0; i < 4; i++) {
      out.write(v >>> (8 * i) & 0xff);
    }
  }
}
