package io.nnaudit.bench;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;

/**
 * The records check: which audit command each benchmark op produces, and how many records of it an audit file
 * holds. A record is counted by its command and the run's own directory
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
}
