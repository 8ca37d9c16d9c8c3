package io.nnaudit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;

import io.nnaudit.trail.TrailNames;

/**
 * A trail whose rotated files may be compressed, read as the tests of compression check it: each member's bytes
 * (a {@code .gz} gunzipped), and a copy with every {@code .gz} gunzipped back to its plain name beside the
 * digests, for a verifier that reads plain files. Stateless.
 */
public final class CompressedTrail {
  private CompressedTrail() {
  }

  /** The bytes a gzip file holds. */
  public static byte[] gunzip(Path gz) throws IOException {
    try (InputStream in = new GZIPInputStream(Files.newInputStream(gz))) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      byte[] buf = new byte[65536];
      for (int n; (n = in.read(buf)) > 0;) {
        out.write(buf, 0, n);
      }
      return out.toByteArray();
    }
  }

  /** Whether something is at {@code p} (not following links). */
  public static boolean exists(Path p) {
    return Files.exists(p, LinkOption.NOFOLLOW_LINKS);
  }

  /**
   * The bytes of member {@code i} (0: the live file), plain or gunzipped; null when neither is there. Fails when
   * both are: no member may be there twice.
   */
  public static byte[] member(Path live, int i) throws IOException {
    Path plain = TrailNames.file(live, i);
    Path gz = TrailNames.compressed(plain);
    if (exists(plain) && exists(gz)) {
      throw new AssertionError(plain + " is there both plain and compressed");
    }
    return exists(gz) ? gunzip(gz) : exists(plain) ? Files.readAllBytes(plain) : null;
  }

  /** The text of the trail's members, oldest first, from index {@code highest} down to the live file. */
  public static String text(Path live, int highest) throws IOException {
    StringBuilder b = new StringBuilder();
    for (int i = highest; i >= 0; i--) {
      byte[] m = member(live, i);
      if (m != null) {
        b.append(new String(m, java.nio.charset.StandardCharsets.UTF_8));
      }
    }
    return b.toString();
  }

  /**
   * Copies the trail of {@code live} into {@code to}, every {@code .gz} gunzipped to its plain name, with every
   * digest and other trail name as it is; returns the copy's live file.
   */
  public static Path plainCopy(Path live, Path to) throws IOException {
    Files.createDirectories(to);
    String base = live.getFileName().toString();
    try (java.util.stream.Stream<Path> files = Files.list(live.toAbsolutePath().getParent())) {
      for (Path p : (Iterable<Path>) files::iterator) {
        String name = p.getFileName().toString();
        if (!name.startsWith(base)) {
          continue;
        }
        if (TrailNames.isCompressed(name)) {
          Files.write(to.resolve(TrailNames.uncompressed(p).getFileName()), gunzip(p));
        } else {
          Files.copy(p, to.resolve(name));
        }
      }
    }
    return to.resolve(base);
  }
}
