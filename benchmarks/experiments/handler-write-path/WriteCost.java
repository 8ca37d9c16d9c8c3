import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * The CPU of appending one 250-byte record with write(2) through a FileChannel, the way a handler that leads a
 * write of its own record does: from a heap buffer (the JDK copies it into its per-thread native buffer), from
 * a direct buffer, and ten records a write. Usage: java WriteCost.java DIR (pinned: taskset -c 0).
 */
public class WriteCost {
  public static void main(String[] args) throws Exception {
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    byte[] rec = new byte[250];
    Arrays.fill(rec, (byte) 'x');
    rec[249] = '\n';
    int n = 200_000;
    for (int round = 1; round <= 4; round++) {
      for (String mode : new String[] {"heap", "direct", "heap-10-a-write"}) {
        Path p = Paths.get(args[0], "writecost-" + mode);
        Files.deleteIfExists(p);
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.APPEND)) {
          ByteBuffer direct = ByteBuffer.allocateDirect(4096);
          byte[] ten = new byte[2500];
          for (int i = 0; i < 10; i++) {
            System.arraycopy(rec, 0, ten, 250 * i, 250);
          }
          int per = mode.equals("heap-10-a-write") ? 10 : 1;
          long c0 = mx.getCurrentThreadCpuTime();
          for (int i = 0; i < n; i += per) {
            if (mode.equals("direct")) {
              direct.clear();
              direct.put(rec);
              direct.flip();
              ch.write(direct);
            } else {
              ch.write(ByteBuffer.wrap(per == 1 ? rec : ten));
            }
          }
          long c1 = mx.getCurrentThreadCpuTime();
          System.out.printf("round %d %-16s %.3f us of CPU per record%n", round, mode, (c1 - c0) / 1000.0 / n);
        }
        Files.delete(p);
      }
    }
  }
}
