package io.nnaudit.verify;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.zip.GZIPOutputStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gzip reader verify uses, on real files: what GZIPOutputStream writes decompresses to what went in, across
 * its 64 KB pieces and over several members, whatever the cut; a file cut short anywhere, or with its header CRC,
 * reserved flags or trailing bytes wrong, is damaged, and it says so with how far it got.
 */
class StrictGunzipTest {
  @TempDir
  Path dir;

  private static byte[] gzip(byte[] b) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream z = new GZIPOutputStream(out, 4096)) {
      z.write(b);
    }
    return out.toByteArray();
  }

  /** Half-compressible bytes: random letters in lines, so that the compressed file is several pieces long. */
  private static byte[] content(int size, long seed) {
    Random rnd = new Random(seed);
    byte[] b = new byte[size];
    for (int i = 0; i < size; i++) {
      b[i] = rnd.nextInt(80) == 0 ? (byte) '\n' : (byte) ('a' + rnd.nextInt(26));
    }
    return b;
  }

  private StrictGunzip.Damage inflate(byte[] gz, ByteArrayOutputStream out) throws Exception {
    Path f = dir.resolve("f.gz");
    Files.write(f, gz);
    return StrictGunzip.inflate(f, out);
  }

  @Test
  void wholeFilesOfOneOrSeveralMembersDecompressToWhatWentIn() throws Exception {
    byte[] a = content(700_000, 1);
    byte[] b = content(90_000, 2);
    byte[] gz = gzip(a);
    assertTrue(gz.length > 3 * 65536, "several pieces: " + gz.length);
    for (byte[][] parts : new byte[][][] {{a}, {a, b}, {b, new byte[0], a}}) {
      ByteArrayOutputStream want = new ByteArrayOutputStream();
      ByteArrayOutputStream file = new ByteArrayOutputStream();
      for (byte[] p : parts) {
        want.write(p);
        file.write(gzip(p));
      }
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      assertNull(inflate(file.toByteArray(), out));
      assertArrayEquals(want.toByteArray(), out.toByteArray());
    }
  }

  @Test
  void aFileCutShortAnywhereIsCut() throws Exception {
    byte[] a = content(300_000, 3);
    byte[] gz = gzip(a);
    Random rnd = new Random(4);
    for (int k = 0; k < 40; k++) {
      int cut = k < 20 ? k : k < 30 ? gz.length - (k - 19) : rnd.nextInt(gz.length);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      StrictGunzip.Damage d = inflate(Arrays.copyOf(gz, cut), out);
      assertNotNull(d, "cut at " + cut);
      assertTrue(d.cut, cut + ": " + d);
      assertEquals(out.size(), d.uncompressedBytes);
      assertArrayEquals(Arrays.copyOf(a, out.size()), out.toByteArray(), "what came out is the start");
    }
  }

  @Test
  void wrongHeadersAndTrailingBytesAreDamage() throws Exception {
    byte[] gz = gzip(content(10_000, 5));
    byte[] reserved = gz.clone();
    reserved[3] |= (byte) 0x20;
    byte[] method = gz.clone();
    method[2] = 7;
    byte[] hcrc = gz.clone();
    hcrc[3] |= 2; // says a header CRC follows: the next two bytes (deflate data) are not it
    byte[] crc = gz.clone();
    crc[gz.length - 6] ^= 1;
    byte[] length = gz.clone();
    length[gz.length - 2] ^= 1;
    byte[] zeros = Arrays.copyOf(gz, gz.length + 2);
    for (byte[] bad : new byte[][] {reserved, method, hcrc, crc, length, zeros}) {
      StrictGunzip.Damage d = inflate(bad, new ByteArrayOutputStream());
      assertNotNull(d);
      assertTrue(!d.cut, d.toString());
    }
  }
}
