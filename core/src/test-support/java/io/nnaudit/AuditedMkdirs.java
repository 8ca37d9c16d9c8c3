package io.nnaudit;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.HashSet;
import java.util.Set;

/**
 * What an audit file in the stock line format, with its rotated predecessors ({@code NAME.1}, {@code NAME.2},
 * ...), says about a {@link MkdirsLoad}: the paths that have a {@code cmd=mkdirs} record, and the events
 * reported lost by {@code nnaudit=dropped} records. A file that ends without a newline (a write cut short by
 * kill -9) has a partial last record; it is not counted as a record, and {@link #partialFiles} says so.
 */
final class AuditedMkdirs {
  private static final String MKDIRS = "\tcmd=mkdirs\tsrc=";
  private static final String DROPPED = "nnaudit=dropped\tcount=";

  /** The {@code src=} of every mkdirs record, as written (escaped). */
  public final Set<String> paths = new HashSet<>();
  /** The sum of {@code count=} over the drop records. */
  public long droppedReported;
  public int dropRecords;
  public int files;
  public int partialFiles;

  private AuditedMkdirs() {
  }

  public static AuditedMkdirs read(File auditFile) throws IOException {
    AuditedMkdirs r = new AuditedMkdirs();
    File[] all = auditFile.getParentFile().listFiles((d, n) -> n.equals(auditFile.getName())
        || n.matches(java.util.regex.Pattern.quote(auditFile.getName()) + "\\.\\d+"));
    for (File f : all == null ? new File[0] : all) {
      r.scan(new String(Files.readAllBytes(f.toPath()), StandardCharsets.UTF_8));
    }
    return r;
  }

  /** How many of {@code acked} have no mkdirs record. */
  public long missing(Set<String> acked) {
    return acked.stream().filter(p -> !paths.contains(p)).count();
  }

  private void scan(String text) {
    files++;
    int end = text.lastIndexOf('\n') + 1;
    if (end != text.length()) {
      partialFiles++;
    }
    for (String line : text.substring(0, end).split("\n")) {
      int at = line.indexOf(MKDIRS);
      if (at >= 0) {
        int from = at + MKDIRS.length();
        int tab = line.indexOf('\t', from);
        paths.add(tab < 0 ? line.substring(from) : line.substring(from, tab));
        continue;
      }
      at = line.indexOf(DROPPED);
      if (at >= 0) {
        int from = at + DROPPED.length();
        int tab = line.indexOf('\t', from);
        droppedReported += Long.parseLong(tab < 0 ? line.substring(from) : line.substring(from, tab));
        dropRecords++;
      }
    }
  }
}
