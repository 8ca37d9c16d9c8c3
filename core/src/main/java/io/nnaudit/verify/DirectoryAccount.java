package io.nnaudit.verify;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.zip.GZIPInputStream;

import io.nnaudit.seal.Seal;
import io.nnaudit.trail.TrailNames;

/**
 * In a directory given to verify, the files no trail accounts for: every file that looks like an audit file (an
 * audit record, stock or JSON, in its first 4 KB) or a digest (its name says so, or it starts with a seal), and
 * that verify did not read or report for a trail there; and every link, FIFO or other non-file whose name is a
 * trail's or looks like an audit file's or a digest's. A gzip file (by its first bytes, whatever its name: a
 * {@code .gz} set aside as an orphan, a compression's temporary file) is looked at as it decompresses. Deleting a trail's digests, renaming its files out of
 * the names verify reads, or adding files under names it does not read (a leading zero, a rotation's temporary
 * name), then leaves files verify names, rather than a directory that verifies. Stateless.
 */
final class DirectoryAccount {
  /** How much of a file's start is read to tell an audit file: its first line, at most this much. */
  private static final int HEAD = 4096;

  private DirectoryAccount() {
  }

  /**
   * The files of {@code dir} that look like audit files or digests and that none of {@code reports} accounts
   * for (see the class comment).
   */
  static List<Path> strays(Path dir, List<VerifyReport> reports) throws IOException {
    java.util.Set<Path> accounted = new java.util.HashSet<>();
    List<Path> trails = new ArrayList<>();
    for (VerifyReport r : reports) {
      accounted.addAll(r.accounted);
      trails.add(r.trail);
    }
    List<Path> out = new ArrayList<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
      for (Path p : ds) {
        if (accounted.contains(p.toAbsolutePath()) || Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
          continue;
        }
        if (!Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) { // a link, a FIFO: not read, named by its name
          if (named(p, trails)) {
            out.add(p);
          }
        } else if (trailName(p, trails) || looksLikeDigest(p) || looksLikeAuditFile(p)) {
          out.add(p);
        }
      }
    }
    Collections.sort(out);
    return out;
  }

  /** A name of a trail here that verify reads or sets aside (a shipper's checkpoint beside it is not one). */
  private static boolean trailName(Path p, List<Path> trails) {
    for (Path live : trails) {
      if (TrailNames.isTrailName(live, p.getFileName().toString())) {
        return true;
      }
    }
    return false;
  }

  /** A name a trail here uses, or one that says audit file or digest. */
  private static boolean named(Path p, List<Path> trails) {
    String name = p.getFileName().toString();
    for (Path live : trails) {
      if (TrailNames.isTrailName(live, name) || name.startsWith(live.getFileName().toString())) {
        return true;
      }
    }
    return name.contains("audit") || name.contains(TrailNames.DIGEST_SUFFIX);
  }

  private static boolean looksLikeDigest(Path p) throws IOException {
    String name = p.getFileName().toString();
    return TrailNames.namesADigest(name)
        || head(p, true).startsWith(Seal.MAGIC + " ");
  }

  /** A stock record has {@code ugi=} and {@code cmd=} fields; a JSON one, "ugi" and "cmd" members. */
  private static boolean looksLikeAuditFile(Path p) throws IOException {
    String h = head(p, false);
    return h.contains("ugi=") && h.contains("cmd=") || h.contains("\"ugi\"") && h.contains("\"cmd\"");
  }

  /** The file's first 4 KB as text, or only its first line. */
  private static String head(Path p, boolean firstLine) throws IOException {
    byte[] b = new byte[HEAD];
    int n = 0;
    try (InputStream in = Files.newInputStream(p, LinkOption.NOFOLLOW_LINKS)) {
      n = read(in, b);
    }
    if (n >= 2 && (b[0] & 0xff) == 0x1f && (b[1] & 0xff) == 0x8b) { // gzip, whatever its name: as it decompresses
      byte[] z = new byte[HEAD];
      int m = 0;
      try (InputStream in = new GZIPInputStream(Files.newInputStream(p, LinkOption.NOFOLLOW_LINKS))) {
        int r;
        while (m < z.length && (r = in.read(z, m, z.length - m)) > 0) {
          m += r;
        }
      } catch (IOException e) {
        // not gzip, or cut short: what decompressed, if anything
      }
      if (m > 0) {
        b = z;
        n = m;
      }
    }
    String s = new String(b, 0, n, StandardCharsets.UTF_8);
    int nl = s.indexOf('\n');
    return nl < 0 || !firstLine ? s : s.substring(0, nl);
  }

  /** Fills {@code b} from {@code in} as far as it goes; the bytes read. */
  private static int read(InputStream in, byte[] b) throws IOException {
    int n = 0;
    int r;
    while (n < b.length && (r = in.read(b, n, b.length - n)) > 0) {
      n += r;
    }
    return n;
  }
}
