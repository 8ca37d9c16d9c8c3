import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * The CPU of putting one 250-byte record where a kill -9 of the process cannot lose it: appended to a file with
 * write(2) (one record a call, as a handler that leads its own write does), or copied into a file mapped shared
 * (a ring, written once ahead so that its blocks exist), with the file's dirty pages written back every few MB by
 * another thread (msync, standing in for the kernel's flusher), so that each page is write-protected again and
 * the next copy into it faults, as it would in a ring that laps. Usage: java MappedRingCost.java DIR (pinned).
 */
public class MappedRingCost {
  static final int RECORD = 250;

  public static void main(String[] args) throws Exception {
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    byte[] rec = new byte[RECORD];
    Arrays.fill(rec, (byte) 'x');
    rec[RECORD - 1] = '\n';
    int n = 1_000_000; // 250 MB: four laps of the ring
    for (int round = 1; round <= 4; round++) {
      // mode, ring size in MiB, bytes written between two write-backs of the ring in MiB (0: none)
      for (String spec : new String[] {"write,0,0", "mapped,64,0", "mapped,64,4", "mapped,1,0", "mapped,1,4",
          "mapped,1,128"}) {
        String[] f = spec.split(",");
        String mode = f[0].equals("write") ? "write(2)" : "ring " + f[1] + " MiB, write-back "
            + (f[2].equals("0") ? "never" : "every " + f[2] + " MiB");
        int ringBytes = Integer.parseInt(f[1]) << 20;
        long every = Long.parseLong(f[2]) << 20;
        Path p = Paths.get(args[0], "ring-" + spec.replace(',', '-'));
        Files.deleteIfExists(p);
        long cpu;
        long[] flusherCpu = new long[1];
        if (f[0].equals("write")) {
          try (FileChannel ch = FileChannel.open(p, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
              StandardOpenOption.APPEND)) {
            ByteBuffer direct = ByteBuffer.allocateDirect(4096);
            long c0 = mx.getCurrentThreadCpuTime();
            for (int i = 0; i < n; i++) {
              direct.clear();
              direct.put(rec);
              direct.flip();
              ch.write(direct);
            }
            cpu = mx.getCurrentThreadCpuTime() - c0;
          }
        } else {
          try (FileChannel ch = FileChannel.open(p, StandardOpenOption.CREATE, StandardOpenOption.READ,
              StandardOpenOption.WRITE)) {
            ByteBuffer zeros = ByteBuffer.allocateDirect(1 << 20);
            for (long off = 0; off < ringBytes; off += zeros.capacity()) {
              zeros.clear();
              ch.write(zeros, off);
            }
            ch.force(true);
            MappedByteBuffer ring = ch.map(FileChannel.MapMode.READ_WRITE, 0, ringBytes);
            ring.load();
            boolean writeback = every > 0;
            long c0 = mx.getCurrentThreadCpuTime();
            long pos = 0;
            long nextFlush = every;
            Thread flusher = null;
            for (int i = 0; i < n; i++) {
              int at = (int) (pos % (ringBytes - RECORD));
              ring.position(at);
              ring.put(rec);
              pos += RECORD;
              if (writeback && pos >= nextFlush) {
                nextFlush += every;
                if (flusher != null) {
                  flusher.join();
                }
                flusher = new Thread(() -> {
                  long f0 = mx.getCurrentThreadCpuTime();
                  ring.force();
                  flusherCpu[0] += mx.getCurrentThreadCpuTime() - f0;
                });
                flusher.start();
              }
            }
            cpu = mx.getCurrentThreadCpuTime() - c0;
            if (flusher != null) {
              flusher.join();
            }
          }
        }
        System.out.printf("round %d %-38s %.3f us of CPU per record on the writing thread, %.3f on the flusher%n",
            round, mode, cpu / 1000.0 / n, flusherCpu[0] / 1000.0 / n);
        Files.delete(p);
      }
    }
  }
}
