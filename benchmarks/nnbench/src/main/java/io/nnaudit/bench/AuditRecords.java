package io.nnaudit.bench;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.zip.GZIPInputStream;
import java.util.ArrayList;
import java.util.List;
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
    awaitSettled(() -> size(path));
    long[] n = new long[3];
    try (RandomAccessFile f = new RandomAccessFile(path, "r")) {
      byte[] buf = new byte[(int) (f.length() - offset)];
      f.seek(offset);
      f.readFully(buf);
      for (String line : new String(buf, StandardCharsets.UTF_8).split("\n")) {
        tally(line, "\tcmd=" + cmd + "\tsrc=" + dir, n);
      }
    }
    return n;
  }

  /** How far a file or trail has been written; it may fail as a read of files does. */
  private interface Extent {
    long get() throws Exception;
  }

  /** Returns once {@code extent} has not changed for 500 ms (looked at every 50 ms). */
  private static void awaitSettled(Extent extent) throws Exception {
    long last = -1;
    long stableSince = System.nanoTime();
    while (System.nanoTime() - stableSince < 500_000_000L) {
      long s = extent.get();
      if (s != last) {
        last = s;
        stableSince = System.nanoTime();
      }
      Thread.sleep(50); // the poll interval of this wait for 500 ms without growth
    }
  }

  private static final Pattern DISCARDED = Pattern.compile("Discarded (\\d+) messages");
  private static final Pattern REPORTED = Pattern.compile("nnaudit=dropped\tcount=(\\d+)");

  /** Adds {@code line} to {records with needle, reload4j's "Discarded N" losses, nnaudit's reported drops}. */
  private static void tally(String line, String needle, long[] n) {
    if (line.contains(needle)) {
      n[0]++;
    }
    Matcher m = DISCARDED.matcher(line);
    if (m.find()) {
      n[1] += Long.parseLong(m.group(1));
    }
    Matcher d = REPORTED.matcher(line);
    if (d.find()) {
      n[2] += Long.parseLong(d.group(1));
    }
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

  /**
   * Where a rotating trail ends now: the bytes of records in the live file and every rotated file beside it,
   * plain ({@code FILE.N}) or compressed ({@code FILE.N.gz}, its size from the gzip trailer), taken from a listing
   * that did not change while it was read. With no rotated file it is the live file's size, as {@link #size}.
   */
  static long trailPosition(String audit) throws Exception {
    long p = 0;
    for (TrailFile f : stableTrail(audit)) {
      p += f.bytes;
    }
    return p;
  }

  /**
   * {@link #countOnceSettled} for an audit file that rotates, and whose rotated files may be compressed while
   * it is read: the records of {@code cmd} under {@code dir} after trail position {@code position} (from
   * {@link #trailPosition}), in every file of the trail, oldest first; once the trail has stopped growing for
   * 500 ms. Each record is counted once: files are read from one listing that did not change while they were
   * read (taken again otherwise), and an index that has both its plain file and its {@code .gz} (the moment
   * between a compression's rename and its delete) is read from the plain file, which is complete. No record
   * is missed as long as no rotated file is deleted (a rotating variant keeps them all).
   */
  static long[] countTrailOnceSettled(String audit, long position, String cmd, String dir) throws Exception {
    awaitSettled(() -> trailPosition(audit));
    String needle = "\tcmd=" + cmd + "\tsrc=" + dir;
    for (int attempt = 0; ; attempt++) {
      List<TrailFile> files = stableTrail(audit);
      long[] n = new long[3];
      long at = 0;
      for (TrailFile f : files) {
        long end = at + f.bytes;
        if (end > position) {
          try (java.io.InputStream raw = Files.newInputStream(f.path);
              java.io.InputStream in = f.compressed ? new GZIPInputStream(raw, 1 << 16) : raw;
              java.io.BufferedReader r = new java.io.BufferedReader(
                  new java.io.InputStreamReader(in, StandardCharsets.UTF_8), 1 << 16)) {
            long skip = Math.max(0, position - at);
            while (skip > 0) { // bytes, not chars: every line before the position is skipped whole
              long k = in.skip(skip);
              if (k <= 0) {
                throw new IOException(f.path + " is shorter than its listing said");
              }
              skip -= k;
            }
            for (String line; (line = r.readLine()) != null;) {
              tally(line, needle, n);
            }
          }
        }
        at = end;
      }
      if (files.equals(listTrail(audit))) {
        return n;
      }
      if (attempt >= 100) {
        throw new IOException("the trail of " + audit + " kept changing while its records were counted");
      }
    }
  }

  /**
   * Whether every rotated file of the trail is compressed and no compression is under way: no {@code FILE.N}
   * left and no {@code FILE.compressing-T}.
   */
  static boolean compressedAll(String audit) throws IOException {
    java.nio.file.Path live = Paths.get(audit);
    String name = live.getFileName().toString();
    try (java.nio.file.DirectoryStream<java.nio.file.Path> ds = Files.newDirectoryStream(live.getParent(),
        name + ".*")) {
      for (java.nio.file.Path p : ds) {
        String n = p.getFileName().toString().substring(name.length());
        if (n.matches("\\.\\d+") || n.startsWith(".compressing-")) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * The uncompressed bytes of every {@code .gz} of the trail (from their trailers); one whose plain file is still
   * there (its compression is finishing) is not counted yet.
   */
  static long compressedBytes(String audit) throws Exception {
    long b = 0;
    for (TrailFile f : stableTrail(audit)) {
      if (f.compressed) {
        b += f.bytes;
      }
    }
    return b;
  }

  /** One file of a trail as a listing saw it. Immutable; equal when the same file had the same size. */
  private static final class TrailFile {
    final java.nio.file.Path path;
    final boolean compressed;
    /** Bytes of records: the file's size, or a .gz's uncompressed size from its trailer. */
    final long bytes;
    final Object key;

    TrailFile(java.nio.file.Path path, boolean compressed, long bytes, Object key) {
      this.path = path;
      this.compressed = compressed;
      this.bytes = bytes;
      this.key = key;
    }

    @Override
    public boolean equals(Object o) {
      if (!(o instanceof TrailFile)) {
        return false;
      }
      TrailFile t = (TrailFile) o;
      return path.equals(t.path) && bytes == t.bytes && java.util.Objects.equals(key, t.key);
    }

    @Override
    public int hashCode() {
      return path.hashCode();
    }
  }

  /** A listing of the trail that is the same before and after it is taken twice in a row. */
  private static List<TrailFile> stableTrail(String audit) throws Exception {
    List<TrailFile> a = listTrail(audit);
    for (int attempt = 0; attempt < 1000; attempt++) {
      List<TrailFile> b = listTrail(audit);
      if (a.equals(b)) {
        return a;
      }
      a = b;
      Thread.sleep(1); // a rotation's or a compression's renames are under way
    }
    throw new IOException("the trail of " + audit + " kept changing");
  }

  /**
   * The trail's files, oldest first: {@code FILE.N} down to {@code FILE.1}, then {@code FILE}; at an index with
   * both a plain file and a {@code .gz}, the plain file alone. A file that goes while it is listed makes the
   * listing differ from the next, which the callers take again.
   */
  private static List<TrailFile> listTrail(String audit) throws IOException {
    java.nio.file.Path live = Paths.get(audit);
    String name = live.getFileName().toString();
    Pattern member = Pattern.compile(Pattern.quote(name) + "\\.(\\d+)(\\.gz)?");
    java.util.TreeMap<Integer, TrailFile> byIndex = new java.util.TreeMap<>(java.util.Collections.reverseOrder());
    try (java.nio.file.DirectoryStream<java.nio.file.Path> ds = Files.newDirectoryStream(live.getParent(),
        name + ".*")) {
      for (java.nio.file.Path p : ds) {
        Matcher m = member.matcher(p.getFileName().toString());
        if (!m.matches()) {
          continue;
        }
        boolean gz = m.group(2) != null;
        TrailFile f = file(p, gz);
        if (f == null) {
          continue;
        }
        int i = Integer.parseInt(m.group(1));
        TrailFile there = byIndex.get(i);
        if (there == null || there.compressed && !gz) { // the plain file wins: both hold the same records
          byIndex.put(i, f);
        }
      }
    }
    List<TrailFile> out = new ArrayList<>(byIndex.values());
    TrailFile l = file(live, false);
    if (l != null) {
      out.add(l);
    }
    return out;
  }

  /** The file as it is now, or null when it is not there (any more). */
  private static TrailFile file(java.nio.file.Path p, boolean gz) throws IOException {
    try {
      java.nio.file.attribute.BasicFileAttributes a = Files.readAttributes(p,
          java.nio.file.attribute.BasicFileAttributes.class, java.nio.file.LinkOption.NOFOLLOW_LINKS);
      long bytes = a.size();
      if (gz) {
        if (bytes < 20) { // not yet a whole member
          return new TrailFile(p, true, 0, a.fileKey());
        }
        try (RandomAccessFile f = new RandomAccessFile(p.toFile(), "r")) {
          f.seek(bytes - 4);
          bytes = f.read() | f.read() << 8 | f.read() << 16 | (long) f.read() << 24; // ISIZE: mod 2^32
        }
      }
      return new TrailFile(p, gz, bytes, a.fileKey());
    } catch (java.nio.file.NoSuchFileException | java.io.FileNotFoundException gone) {
      return null;
    }
  }

  /** The file's size in bytes; 0 before it exists. */
  static long size(String path) throws IOException {
    java.nio.file.Path p = Paths.get(path);
    return Files.exists(p) ? Files.size(p) : 0;
  }
}
