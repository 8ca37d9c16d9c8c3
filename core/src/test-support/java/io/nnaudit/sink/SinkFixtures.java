package io.nnaudit.sink;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.function.LongSupplier;

import org.apache.hadoop.conf.Configuration;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.settings.NnauditSettings;
import io.nnaudit.sink.file.RollingFileSink;

/** Sink contexts, a clock the test moves, and writes, for the tests of {@link RollingFileSink}. */
public final class SinkFixtures {
  private SinkFixtures() {
  }

  /** The context nnaudit gives a sink under these settings (read and checked as at start-up). */
  public static SinkContext context(Path file, String maxSize, int backups, String durability) {
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.FILE_PATH_KEY, file.toString());
    c.set(NnauditConfigKeys.FILE_MAX_SIZE_KEY, maxSize);
    c.setInt(NnauditConfigKeys.FILE_MAX_BACKUPS_KEY, backups);
    c.set(NnauditConfigKeys.DURABILITY_KEY, durability);
    return NnauditSettings.fromConf(c).sinkContext();
  }

  public static void write(RollingFileSink sink, String text) throws IOException {
    sink.write(ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)));
  }

  /** A sink whose channels are opened plainly and whose clock only moves when the test says. */
  public static RollingFileSink sink(SinkContext context, ManualClock clock) {
    return new RollingFileSink(context, FileChannel::open, clock);
  }

  /** Milliseconds that pass only when {@link #advance} is called. */
  public static final class ManualClock implements LongSupplier {
    private long now = 1_000_000;

    public void advance(long millis) {
      now += millis;
    }

    @Override
    public long getAsLong() {
      return now;
    }
  }

  public static boolean run(String... command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(
        ProcessBuilder.Redirect.DISCARD).start();
    return p.waitFor() == 0;
  }
}
