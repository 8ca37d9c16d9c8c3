package io.nnaudit.seal;

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

/**
 * In a directory given to verify, the files no trail accounts for: every file that looks like an audit file
 * (its first line is an audit record, stock or JSON) or a digest (its name says so, or its first line is a
 * seal), and is not one of the names of a trail found there. Deleting a trail's digests, or renaming its files
 * out of its names, then leaves files verify names, rather than a directory that verifies. Stateless.
 */
final class DirectoryAccount {
  /** How much of a file's start is read to tell an audit file: its first line, at most this much. */
  private static final int HEAD = 4096;

  private DirectoryAccount() {
  }

  /** The files of {@code dir} that look like audit files or digests and belong to none of {@code trails}. */
  static List<Path> strays(Path dir, List<Path> trails) throws IOException {
    List<Path> out = new ArrayList<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
      for (Path p : ds) {
        if (!Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS) || belongs(p, trails)) {
          continue;
        }
        if (looksLikeDigest(p) || looksLikeAuditFile(p)) {
          out.add(p);
        }
      }
    }
    Collections.sort(out);
    return out;
  }

  private static boolean belongs(Path p, List<Path> trails) {
    String name = p.getFileName().toString();
    for (Path live : trails) {
      if (TrailVerifier.isTrailName(live, name)) {
        return true;
      }
    }
    return false;
  }

  private static boolean looksLikeDigest(Path p) throws IOException {
    String name = p.getFileName().toString();
    return name.endsWith(DigestFile.SUFFIX) || name.contains(DigestFile.SUFFIX + ".")
        || head(p).startsWith(Seal.MAGIC + " ");
  }

  /** A stock record has {@code ugi=} and {@code cmd=} fields; a JSON one, "ugi" and "cmd" members. */
  private static boolean looksLikeAuditFile(Path p) throws IOException {
    String h = head(p);
    return h.contains("ugi=") && h.contains("cmd=") || h.contains("\"ugi\"") && h.contains("\"cmd\"");
  }

  private static String head(Path p) throws IOException {
    byte[] b = new byte[HEAD];
    int n = 0;
    try (InputStream in = Files.newInputStream(p, LinkOption.NOFOLLOW_LINKS)) {
      int r;
      while (n < b.length && (r = in.read(b, n, b.length - n)) > 0) {
        n += r;
      }
    }
    String s = new String(b, 0, n, StandardCharsets.UTF_8);
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }
}
