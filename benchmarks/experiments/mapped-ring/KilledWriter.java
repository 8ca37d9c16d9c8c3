import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;

/**
 * Copies numbered 250-byte records into a file mapped shared, says how many it copied, and waits to be killed:
 * kill-check.sh kills it with SIGKILL and reads the file back, to show that what was copied before the kill is in
 * the file afterwards, as after a write(2). Usage: java KilledWriter.java FILE RECORDS.
 */
public class KilledWriter {
  public static void main(String[] args) throws Exception {
    int records = Integer.parseInt(args[1]);
    try (FileChannel ch = FileChannel.open(Paths.get(args[0]), StandardOpenOption.CREATE, StandardOpenOption.READ,
        StandardOpenOption.WRITE)) {
      MappedByteBuffer ring = ch.map(FileChannel.MapMode.READ_WRITE, 0, 250L * records);
      for (int i = 0; i < records; i++) {
        StringBuilder line = new StringBuilder(String.format("record %09d ", i));
        while (line.length() < 249) {
          line.append('x');
        }
        ring.put(line.append('\n').toString().getBytes(StandardCharsets.US_ASCII));
      }
      System.out.println("copied " + records);
      System.out.flush();
      Thread.sleep(600_000); // killed here, never unmapped, never forced
    }
  }
}
