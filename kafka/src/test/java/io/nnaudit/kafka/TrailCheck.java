package io.nnaudit.kafka;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.StringReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import io.nnaudit.CompressedTrail;
import io.nnaudit.seal.Seal;

/**
 * Checks one NameNode's trail as read back from the topic, the way docs/kafka.md tells a consumer to: drop every
 * record whose identity was seen before (its copy must be identical), and what is left must be in order and
 * without a hole: within a file each record starts where the last one ended, a file-end record closes the file
 * at its length, and the next file starts at 0. Only a gap record may announce a hole, after which the trail
 * goes on from a later place. A seal record comes after the record that ends where its range ends (the sink's
 * sealing thread writes a seal shortly after the bytes it covers, so later records may come first), in the
 * file it seals, before its file-end; where the records of its whole range were read here, their bytes (each
 * value and a line end) must hash to the seal's {@code sha256}.
 */
final class TrailCheck {
  /** After a gap record: the next record may be anywhere later in the trail. */
  private static final long RESYNC = -2;
  /** The audit lines of the source, in order, after dropping duplicates. */
  final List<String> lines = new ArrayList<>();
  /** The seal lines of the source, in order, after dropping duplicates. */
  final List<String> seals = new ArrayList<>();
  /** Seals whose range was read whole from the topic and hashes as the seal says. */
  int sealsChecked;
  int duplicates;
  int gaps;
  int fileEnds;
  final List<Long> epochs = new ArrayList<>();

  static TrailCheck of(List<ShippedRecord> all, String source) {
    TrailCheck c = new TrailCheck();
    Map<String, ShippedRecord> seen = new HashMap<>();
    Integer partition = null;
    long lastEpoch = -1;
    long lastSeq = -1;
    int lastPart = -1;
    long file = -1;
    long next = 0;
    long lastPosition = 0;
    // the bytes of the file's records read so far, from byte bytesFrom of the file (-1: not known), for its seals
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    long bytesFrom = -1;
    for (ShippedRecord r : all) {
      if (!r.source.equals(source)) {
        continue;
      }
      assertEquals(source, r.key, "the key is the source");
      if (partition == null) {
        partition = r.partition;
      }
      assertEquals(partition.intValue(), r.partition, "one source, one partition: " + r);
      if (r.epoch == lastEpoch) {
        assertTrue(r.seq > lastSeq || r.seq == lastSeq && r.part > lastPart, "seq goes up within an epoch: " + r);
      } else {
        assertTrue(r.epoch > lastEpoch, "epochs go up: " + r);
        c.epochs.add(r.epoch);
      }
      lastEpoch = r.epoch;
      lastSeq = r.seq;
      lastPart = r.part;
      ShippedRecord before = seen.putIfAbsent(r.identity(), r);
      if (before != null) {
        assertArrayEquals(before.value, r.value, "a duplicate is the same record: " + r);
        c.duplicates++;
        continue;
      }
      if (file == -1) {
        file = r.file;
        next = r.offset;
        assertEquals(0, next, "the trail starts at the beginning of a file: " + r);
        bytes.reset();
        bytesFrom = 0;
      } else if (file == RESYNC && !r.type.equals(ShipHeaders.GAP)) {
        assertTrue(ShipPosition.global(r.file, r.offset) >= lastPosition, "after a gap the trail goes on: " + r);
        file = r.file;
        next = r.offset;
        bytes.reset();
        bytesFrom = next; // the seals of ranges before this point cannot be checked
      }
      switch (r.type) {
        case ShipHeaders.GAP:
          c.gaps++;
          if (file != RESYNC) {
            lastPosition = ShipPosition.global(Math.max(file, 0), next);
          }
          file = RESYNC; // what follows may start anywhere later
          break;
        case ShipHeaders.FILE_END:
          assertEquals(file, r.file, "file-end of the file being read: " + r);
          assertEquals(next, r.offset, "file-end at the end of the last record: " + r);
          c.fileEnds++;
          file++;
          next = 0;
          bytes.reset();
          bytesFrom = 0;
          break;
        case ShipHeaders.SEAL:
          assertEquals(file, r.file, "a seal of the file being read: " + r);
          assertTrue(r.offset <= next, "a seal after the record its range ends with: " + r);
          Seal seal = Seal.parse(r.text());
          assertEquals(r.offset, seal.to, "the offset of a seal is the end of its range: " + r);
          if (bytesFrom >= 0 && seal.from >= bytesFrom) {
            byte[] b = bytes.toByteArray();
            MessageDigest range = sha256();
            range.update(b, (int) (seal.from - bytesFrom), (int) (seal.to - seal.from));
            assertEquals(seal.sha256, hex(range.digest()), "the records of its range hash as the seal says: " + r);
            c.sealsChecked++;
          }
          c.seals.add(r.text());
          break;
        case ShipHeaders.RECORD:
          assertEquals(file, r.file, "no file skipped: " + r);
          assertEquals(next, r.offset, "no bytes skipped or repeated: " + r);
          next = r.offset + r.value.length + 1;
          c.lines.add(r.text());
          bytes.write(r.value, 0, r.value.length);
          bytes.write('\n');
          break;
        default:
          throw new AssertionError("unexpected type " + r);
      }
    }
    return c;
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String hex(byte[] b) {
    StringBuilder sb = new StringBuilder();
    for (byte x : b) {
      sb.append(String.format("%02x", x));
    }
    return sb.toString();
  }

  /** Fails naming the first line that differs, rather than printing both trails whole. */
  void assertLines(List<String> local, String what) {
    int n = Math.min(local.size(), lines.size());
    for (int i = 0; i < n; i++) {
      if (!local.get(i).equals(lines.get(i))) {
        throw new AssertionError(what + ": line " + i + " of " + local.size() + " differs: local '" + local.get(i)
            + "', shipped '" + lines.get(i) + "'");
      }
    }
    assertEquals(local.size(), lines.size(), what + ": local and shipped line counts; the first " + n + " agree"
        + (lines.size() > n ? "; first extra shipped: " + lines.get(n) : local.size() > n ? "; first missing: "
        + local.get(n) : ""));
  }

  /**
   * Every line of the local audit files (the live one and its backups, oldest first), a compressed backup read as
   * what it decompresses to.
   */
  static List<String> localLines(File live) throws IOException {
    List<String> out = new ArrayList<>();
    for (File f : localFiles(live)) {
      // decoded and split as Files.readAllLines does: malformed UTF-8 fails, \r, \n and \r\n end a line
      String text = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(localBytes(f))).toString();
      out.addAll(new BufferedReader(new StringReader(text)).lines().collect(Collectors.toList()));
    }
    return out;
  }

  /**
   * The local audit files, oldest first: the backups ({@code live.N} ... {@code live.1}), then the live one. A
   * backup compressed by the sink is there as {@code live.N.gz}; one there both plain and compressed (a kill
   * between the compressor's rename and its delete, which the next start cleans) is listed once, plain.
   */
  static List<File> localFiles(File live) {
    List<File> out = new ArrayList<>();
    for (int i = 10_000; i >= 1; i--) {
      File b = new File(live.getPath() + "." + i);
      File gz = new File(b.getPath() + ".gz");
      if (b.exists()) {
        out.add(b);
      } else if (gz.exists()) {
        out.add(gz);
      }
    }
    if (live.exists()) {
      out.add(live);
    }
    return out;
  }

  /** The compressed backups among {@link #localFiles}. */
  static long compressedFiles(File live) {
    return localFiles(live).stream().filter(f -> f.getName().endsWith(".gz")).count();
  }

  /** The bytes a local audit file holds: a {@code .gz} gunzipped. */
  static byte[] localBytes(File f) throws IOException {
    return f.getName().endsWith(".gz") ? CompressedTrail.gunzip(f.toPath())
        : Files.readAllBytes(f.toPath());
  }
}
