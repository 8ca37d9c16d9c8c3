package io.nnaudit.seal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Random;

import org.apache.hadoop.conf.Configuration;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.settings.NnauditSettings;
import io.nnaudit.sink.file.RollingFileSink;

/**
 * Writes a large sealed trail through the real file sink, for measuring verify's memory on it
 * ({@code benchmarks/experiments/verify-memory}): {@code LargeTrailWriter DIR GIB} makes keys in DIR/keys and
 * the trail in DIR/trail (256 MB files, 100 kept, the default seal interval), then prints the certificate's path.
 */
public final class LargeTrailWriter {
  private LargeTrailWriter() {
  }

  public static void main(String[] args) throws Exception {
    Path dir = Paths.get(args[0]);
    long bytes = (long) (Double.parseDouble(args[1]) * (1L << 30));
    SealKeys.KeyFiles key = SealKeys.ec(dir.resolve("keys"));
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.FILE_PATH_KEY, dir.resolve("trail/hdfs-audit.log").toString());
    c.set(NnauditConfigKeys.FILE_MAX_SIZE_KEY, "256m");
    c.setInt(NnauditConfigKeys.FILE_MAX_BACKUPS_KEY, 100);
    SealKeys.enable(c, key, dir.resolve("keys"));
    RollingFileSink sink = new RollingFileSink(NnauditSettings.fromConf(c).sinkContext());
    Random rnd = new Random(1);
    long written = 0;
    long n = 0;
    StringBuilder batch = new StringBuilder(1 << 21);
    while (written < bytes) {
      batch.setLength(0);
      while (batch.length() < (1 << 20)) {
        batch.append(TamperPropertyTest.record((int) (n++ % 1_000_000_000), rnd));
      }
      byte[] b = batch.toString().getBytes(StandardCharsets.UTF_8);
      sink.write(ByteBuffer.wrap(b));
      written += b.length;
    }
    sink.close();
    System.out.println("wrote " + written + " bytes, " + n + " records; certificate " + key.certificate);
  }
}
