package io.nnaudit.bench;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The records check of both harnesses: which audit command each benchmark op produces, and how many records of
 * it an audit file holds. A record is counted by its command and the run's own directory
 * ({@code \tcmd=CMD\tsrc=DIR}), so the benchmark's set-up calls and other runs are left out.
 */
final class AuditRecords {
  private AuditRecords() {
  }

  /** The audit cmd each benchmark op produces once per operation. */
  static String auditCmd(String op) {
    switch (op) {
      case "create":
      case "mkdirs":
      case "open":
      case "delete":
      case "rename":
        return op;
      case "fileStatus":
        return "getfileinfo";
      default:
        throw new IllegalArgumentException("unsupported op '" + op + "'; use create, mkdirs, open, delete, "
            + "rename or fileStatus");
    }
  }

  /**
   * Records of {@code cmd} on paths under {@code dir} written after byte {@code offset} of the audit file (the
   * benchmark's own set-up calls are elsewhere, and earlier runs before the offset).
   */
  static long countRecords(File auditFile, long offset, String cmd, String dir) throws IOException {
    String needle = "\tcmd=" + cmd + "\tsrc=" + dir;
    if (!auditFile.exists()) {
      return 0;
    }
    byte[] buf;
    try (RandomAccessFile f = new RandomAccessFile(auditFile, "r")) {
      long length = f.length();
      if (offset > length) {
        throw new IOException(auditFile + " is shorter (" + length + " bytes) than before a run (" + offset + ")");
      }
      buf = new byte[Math.toIntExact(length - offset)];
      f.seek(offset);
      f.readFully(buf);
    }
    long n = 0;
    for (String line : new String(buf, StandardCharsets.UTF_8).split("\n")) {
      if (line.contains(needle)) {
        n++;
      }
    }
    return n;
  }

  /**
   * {records of cmd under dir, reload4j's "Discarded N" losses, nnaudit's reported drops ({@code nnaudit=dropped
   * count=N} records)} after offset, once the file stops growing. A drop record covers every command, so
   * during a measured op it counts that op's drops plus any of the set-up just before it.
   */
  static long[] countOnceSettled(String path, long offset, String cmd, String dir) throws Exception {
    long last = -1;
    long stableSince = System.nanoTime();
    while (System.nanoTime() - stableSince < 500_000_000L) {
      long s = size(path);
      if (s != last) {
        last = s;
        stableSince = System.nanoTime();
      }
      Thread.sleep(50); // the poll interval of this wait for 500 ms without growth
    }
    String needle = "\tcmd=" + cmd + "\tsrc=" + dir;
    Pattern discarded = Pattern.compile("Discarded (\\d+) messages");
    Pattern reported = Pattern.compile("nnaudit=dropped\tcount=(\\d+)");
    long records = 0;
    long lost = 0;
    long dropReported = 0;
    try (RandomAccessFile f = new RandomAccessFile(path, "r")) {
      byte[] buf = new byte[(int) (f.length() - offset)];
      f.seek(offset);
      f.readFully(buf);
      for (String line : new String(buf, StandardCharsets.UTF_8).split("\n")) {
        if (line.contains(needle)) {
          records++;
        }
        Matcher m = discarded.matcher(line);
        if (m.find()) {
          lost += Long.parseLong(m.group(1));
        }
        Matcher d = reported.matcher(line);
        if (d.find()) {
          dropReported += Long.parseLong(d.group(1));
        }
      }
    }
    return new long[] {records, lost, dropReported};
  }

  /** Lines in the audit file and its backups ({@code FILE.1}, {@code FILE.2}, ...). */
  static long linesOnDisk(String audit) throws IOException {
    long lines = 0;
    for (int i = 0; ; i++) {
      java.nio.file.Path p = Paths.get(i == 0 ? audit : audit + "." + i);
      if (!Files.exists(p)) {
        if (i > 0) {
          return lines;
        }
        continue;
      }
      try (java.io.InputStream in = new java.io.BufferedInputStream(Files.newInputStream(p), 1 << 16)) {
        int b;
        while ((b = in.read()) >= 0) {
          if (b == '\n') {
            lines++;
          }
        }
      }
    }
  }

  /** The file's size in bytes; 0 before it exists. */
  static long size(String path) throws IOException {
    java.nio.file.Path p = Paths.get(path);
    return Files.exists(p) ? Files.size(p) : 0;
  }
}
