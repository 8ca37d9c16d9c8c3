package io.nnaudit.seal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.settings.NnauditSettings;
import io.nnaudit.sink.ChunkLease;
import io.nnaudit.sink.file.RollingFileSink;
import io.nnaudit.verify.Verification;
import io.nnaudit.verify.VerifyReport;

/**
 * The sealed file sink keeps a large lent chunk's buffer for its sealing thread instead of copying it, and gives
 * it back once hashed; it copies a small one, and one it may not keep. The test acts as the writer does, and
 * worse: it scribbles over each buffer the moment it is its own again (after the write when it was not kept,
 * after the release when it was). A seal made from a buffer changed under it would not verify.
 */
class LentChunkSealingTest {
  @RegisterExtension
  static final SealKeyFixture ec = new SealKeyFixture();

  @TempDir
  Path dir;

  private int next;

  private RollingFileSink sink(Path live) throws Exception {
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.FILE_PATH_KEY, live.toString());
    c.set(NnauditConfigKeys.FILE_MAX_SIZE_KEY, "8m"); // rotations between kept chunks too
    c.setInt(NnauditConfigKeys.FILE_MAX_BACKUPS_KEY, 20);
    c.setInt(NnauditConfigKeys.SEAL_INTERVAL_RECORDS_KEY, 5000);
    SealKeys.enable(c, ec, dir);
    return new RollingFileSink(NnauditSettings.fromConf(c).sinkContext());
  }

  /** Fills {@code into} with whole records from its start, at least {@code bytes} of them; returns their length. */
  private int records(byte[] into, int bytes) {
    int at = 0;
    while (at < bytes) {
      byte[] r = String.format("record %09d %s%n", next++, "y".repeat(180)).getBytes(StandardCharsets.UTF_8);
      System.arraycopy(r, 0, into, at, r.length);
      at += r.length;
    }
    return at;
  }

  /** A lease on one array that counts keeps, and puts the array back in {@code free} when released. */
  private static final class Lease implements ChunkLease {
    final byte[] array;
    final BlockingQueue<byte[]> free;
    final AtomicInteger kept;
    final boolean refuse;
    boolean over;

    Lease(byte[] array, BlockingQueue<byte[]> free, AtomicInteger kept, boolean refuse) {
      this.array = array;
      this.free = free;
      this.kept = kept;
      this.refuse = refuse;
    }

    @Override
    public Runnable keep(ByteBuffer chunk) {
      if (over || refuse || chunk.array() != array) {
        return null;
      }
      kept.incrementAndGet();
      return () -> {
        Arrays.fill(array, (byte) 'Z'); // the writer formats other records into it at once
        free.add(array);
      };
    }
  }

  @Test
  void keptBuffersAreHashedBeforeTheyAreGivenBackAndSmallOnesAreCopied() throws Exception {
    Path live = dir.resolve("hdfs-audit.log");
    RollingFileSink sink = sink(live);
    BlockingQueue<byte[]> free = new LinkedBlockingQueue<>();
    for (int i = 0; i < 3; i++) {
      free.add(new byte[1 << 20]);
    }
    AtomicInteger kept = new AtomicInteger();
    int large = 0;
    int small = 0;
    int refused = 0;
    for (int i = 0; i < 60; i++) {
      byte[] array = free.poll(30, TimeUnit.SECONDS);
      assertTrue(array != null, "a kept buffer was never given back");
      boolean isSmall = i % 5 == 4; // below the size kept: copied
      boolean refuse = i % 7 == 6; // a lease the sink may not use: copied
      int len = records(array, isSmall ? 8 * 1024 : (1 << 20) - 400);
      Lease lease = new Lease(array, free, kept, refuse);
      int before = kept.get();
      sink.lend(lease);
      sink.write(ByteBuffer.wrap(array, 0, len));
      lease.over = true;
      if (kept.get() == before) { // copied: ours again now
        Arrays.fill(array, (byte) 'Z');
        free.add(array);
        if (isSmall) {
          small++;
        } else {
          refused++;
        }
      } else {
        large++;
      }
    }
    sink.close();
    assertEquals(60 - 12 - 8 + 1, large, "every large chunk lent was kept"); // i = 34 is small and refused
    assertTrue(small > 0 && refused > 0);
    assertEquals(3, free.size(), "every kept buffer was given back once hashed");
    VerifyReport r = Verification.report(ec.checkingKey(), live);
    assertNull(r.tampering(), String.join("\n", r.lines()));
    assertTrue(r.unsealed().isEmpty(), String.join("\n", r.lines()));
    assertEquals(next, r.records(), String.join("\n", r.lines()));
  }

  @Test
  void aLeaseIsGoodForTheNextWriteAlone() throws Exception {
    Path live = dir.resolve("hdfs-audit.log");
    RollingFileSink sink = sink(live);
    byte[] first = new byte[1 << 20];
    AtomicInteger kept = new AtomicInteger();
    BlockingQueue<byte[]> free = new LinkedBlockingQueue<>();
    sink.lend(new Lease(first, free, kept, false));
    sink.write(ByteBuffer.wrap(first, 0, records(first, 8 * 1024))); // small: copied, the lease is spent
    sink.write(ByteBuffer.wrap(first, 0, records(first, 512 * 1024))); // no lease now: copied
    assertEquals(0, kept.get());
    Arrays.fill(first, (byte) 'Z');
    sink.close();
    VerifyReport r = Verification.report(ec.checkingKey(), live);
    assertNull(r.tampering(), String.join("\n", r.lines()));
    assertEquals(next, r.records(), String.join("\n", r.lines()));
  }
}
