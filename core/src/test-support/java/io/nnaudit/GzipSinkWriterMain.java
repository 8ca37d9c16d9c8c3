package io.nnaudit;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import org.apache.hadoop.conf.Configuration;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.settings.NnauditSettings;
import io.nnaudit.sink.file.RollingFileSink;

/**
 * Run in a separate JVM by {@link GzipCompressionCrashTest}: the file sink with {@code nnaudit.file.compress=gzip}
 * and files of 1 MB, writing numbered records ({@code record N}) a hundred at a time, a write every millisecond,
 * so that it rotates about ten times a second and a compression is nearly always under way, until it is killed.
 * Arguments: auditFile. Prints {@code READY}.
 */
public final class GzipSinkWriterMain {
  private GzipSinkWriterMain() {
  }

  public static void main(String[] args) throws Exception {
    RollingFileSink sink = new RollingFileSink(NnauditSettings.fromConf(conf(args)).sinkContext());
    System.out.println("READY");
    System.out.flush();
    String pad = String.join("", java.util.Collections.nCopies(80, "x"));
    for (long n = 0;;) {
      StringBuilder b = new StringBuilder();
      for (int i = 0; i < 100; i++, n++) {
        b.append(String.format("record %09d %s%n", n, pad));
      }
      sink.write(ByteBuffer.wrap(b.toString().getBytes(StandardCharsets.UTF_8)));
      Thread.sleep(1);
    }
  }

  /** The settings of the writer given {@code args}, for it and for a sink started after it on the same files. */
  public static Configuration conf(String... args) {
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.FILE_PATH_KEY, args[0]);
    c.set(NnauditConfigKeys.FILE_MAX_SIZE_KEY, "1m");
    c.setInt(NnauditConfigKeys.FILE_MAX_BACKUPS_KEY, 30);
    c.set(NnauditConfigKeys.FILE_COMPRESS_KEY, "gzip");
    c.set(NnauditConfigKeys.DURABILITY_KEY, "none");
    return c;
  }
}
