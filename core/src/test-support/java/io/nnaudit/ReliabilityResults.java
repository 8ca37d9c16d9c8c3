package io.nnaudit;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;

/**
 * Rows for docs/reliability.md: each fault test writes what it measured to {@code target/reliability/}, and
 * {@code dev-support/bin/reliability-report} turns the rows into the table.
 */
final class ReliabilityResults {
  private ReliabilityResults() {
  }

  public static void record(String fault, String mode, long acknowledged, long onDisk, long lost, String test,
      String note) throws IOException {
    File dir = new File("target/reliability");
    if (!dir.isDirectory() && !dir.mkdirs()) {
      throw new IOException("cannot create " + dir);
    }
    String row = String.join("\t", fault, mode, String.valueOf(acknowledged), String.valueOf(onDisk),
        String.valueOf(lost), test, note) + "\n";
    String name = (fault + "-" + mode).replaceAll("[^A-Za-z0-9-]+", "_") + ".tsv";
    Files.write(new File(dir, name).toPath(), row.getBytes(StandardCharsets.UTF_8));
    System.out.println("RELIABILITY " + row.trim());
  }
}
