package io.nnaudit.trail;

import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Every name a trail's files take, spelled once, for the sink that writes them, the rotation that renames them,
 * the shipper that reads them and the verifier that checks them. The trail of {@code hdfs-audit.log}:
 * <ul>
 *   <li>{@code hdfs-audit.log}, the live file, and {@code hdfs-audit.log.N} its rotated files ({@code .1} the
 *       newest);</li>
 *   <li>{@code hdfs-audit.log.N.gz}: a rotated file compressed, which keeps the index it had;</li>
 *   <li>{@code <file>.seals}: a file's digest (its seals), which moves with its file; a compressed file's digest
 *       keeps the name it had before ({@code hdfs-audit.log.N.seals}), since seals cover the bytes as written;</li>
 *   <li>{@code hdfs-audit.log.compressing-T}: a rotated file being compressed, not yet complete;</li>
 *   <li>on the way through a rotation: {@code hdfs-audit.log.rotating-T} (the live file being rotated) and
 *       {@code hdfs-audit.log.N.expired-T} or {@code hdfs-audit.log.N.gz.expired-T} (a rotated file about to be
 *       deleted), T the rotation's stamp;</li>
 *   <li>set aside: {@code <file>.orphan-T} (a leftover of a rotation that did not match), {@code <digest>.moved-T}
 *       (the digest of a live file someone moved away), {@code <digest>.stale-T} (a digest an older version set
 *       aside at a start).</li>
 * </ul>
 * Stateless.
 */
public final class TrailNames {
  /** A digest's name is its audit file's name and this. */
  public static final String DIGEST_SUFFIX = ".seals";
  private static final String STAGED = ".rotating-";
  private static final String EXPIRED = ".expired-";
  private static final String ORPHAN = ".orphan-";
  private static final String MOVED = ".moved-";
  /** A compressed rotated file's name is its name uncompressed and this. */
  public static final String COMPRESSED_SUFFIX = ".gz";
  private static final String COMPRESSING = ".compressing-";

  /** What a rotation's temporary names add to a file's name, as a regex: {@code .N}, {@code .rotating-T}, ... */
  private static final Pattern ROTATION_TAIL =
      Pattern.compile("\\.(?:[0-9]+(?:\\.gz)?|rotating-[0-9]+|compressing-[0-9]+"
          + "|[0-9]+(?:\\.gz)?\\.expired-[0-9]+)$");

  private TrailNames() {
  }

  /** {@code file.i}: the rotated file {@code i} of the live file. */
  public static Path backup(Path live, int i) {
    return live.resolveSibling(live.getFileName() + "." + i);
  }

  /** The live file (0) or its rotated file {@code i}. */
  public static Path file(Path live, int i) {
    return i == 0 ? live : backup(live, i);
  }

  /** The name of {@code plain} once compressed: {@code .gz} added. */
  public static Path compressed(Path plain) {
    return plain.resolveSibling(plain.getFileName() + COMPRESSED_SUFFIX);
  }

  /** Whether {@code name} is that of a compressed rotated file. */
  public static boolean isCompressed(String name) {
    return name.endsWith(COMPRESSED_SUFFIX);
  }

  /** The name {@code member} has uncompressed, which its digest follows: {@code .gz} taken off, if there. */
  public static Path uncompressed(Path member) {
    return member.resolveSibling(uncompressed(member.getFileName().toString()));
  }

  /** {@code name} with {@code .gz} taken off, if there. */
  public static String uncompressed(String name) {
    return isCompressed(name) ? name.substring(0, name.length() - COMPRESSED_SUFFIX.length()) : name;
  }

  /**
   * The plain name of the rotated file {@code name} stands for: a digest's file, a compressed file's plain name
   * ({@code file.N.seals}, {@code file.N.gz} and {@code file.N} all give {@code file.N}).
   */
  public static String memberOf(String name) {
    return uncompressed(isDigest(name) ? auditFileOf(name) : name);
  }

  /** Where a rotated file of the live file is compressed to before it is complete, with the step's stamp. */
  public static Path compressing(Path live, String stamp) {
    return live.resolveSibling(live.getFileName() + COMPRESSING + stamp);
  }

  /** Matches {@link #compressing} names of the live file {@code liveName}. */
  public static Pattern compressingPattern(String liveName) {
    return Pattern.compile(Pattern.quote(liveName) + Pattern.quote(COMPRESSING) + "[0-9]+");
  }

  /** The digest file of {@code auditFile}. */
  public static Path digest(Path auditFile) {
    return auditFile.resolveSibling(auditFile.getFileName() + DIGEST_SUFFIX);
  }

  /** The name of the live file while it is being rotated, with the rotation's stamp. */
  public static Path staged(Path live, String stamp) {
    return live.resolveSibling(live.getFileName() + STAGED + stamp);
  }

  /** The name a rotated file about to expire is given, with the rotation's stamp. */
  public static Path expired(Path live, int index, String stamp) {
    return live.resolveSibling(live.getFileName() + "." + index + EXPIRED + stamp);
  }

  /** The name the compressed rotated file {@code file.N.gz} about to expire is given, with the rotation's stamp. */
  public static Path expiredCompressed(Path live, int index, String stamp) {
    return live.resolveSibling(live.getFileName() + "." + index + COMPRESSED_SUFFIX + EXPIRED + stamp);
  }

  /**
   * The name a dated rotated file (plain, or its {@code .gz}) about to expire is given: its own name with the
   * rotation's stamp, so that a start after a kill pairs it with its digest.
   */
  public static Path expiredMember(Path member, String stamp) {
    return member.resolveSibling(member.getFileName() + EXPIRED + stamp);
  }

  /** The member's name an {@link #expiredMember} name had, or null when {@code name} is not one. */
  public static String unexpired(String name) {
    int at = name.lastIndexOf(EXPIRED);
    return at > 0 && name.substring(at + EXPIRED.length()).matches("[0-9]+") ? name.substring(0, at) : null;
  }

  /** Where a file that does not fit a rotation's plan is set aside. */
  public static Path orphan(Path p, long millis) {
    return p.resolveSibling(p.getFileName() + ORPHAN + millis);
  }

  /** Where the digest of a live file that someone moved away is set aside. */
  public static Path movedDigest(Path digest, long millis) {
    return digest.resolveSibling(digest.getFileName() + MOVED + millis);
  }

  /** Matches {@link #staged} names of the live file {@code liveName}. */
  public static Pattern stagedPattern(String liveName) {
    return Pattern.compile(Pattern.quote(liveName) + Pattern.quote(STAGED) + "[0-9]+");
  }

  /**
   * Matches {@link #expired}, {@link #expiredCompressed} and {@link #expiredMember} names of the live file
   * {@code liveName}.
   */
  public static Pattern expiredPattern(String liveName) {
    return Pattern.compile(Pattern.quote(liveName) + "\\.[^/]+" + Pattern.quote(EXPIRED) + "[0-9]+");
  }

  /**
   * Whether {@code name} (a name a pattern of rotated names would give) is, or ends like, one of the names the
   * trail gives other files: a digest, a compressed file, a rotation's or a compression's temporary name, a file
   * set aside, a shipper's checkpoint. Such a pattern would have its files taken for something else.
   */
  public static boolean isReservedTail(String name) {
    if (isDigest(name) || isCompressed(name) || name.endsWith(".kafka-checkpoint")) {
      return true;
    }
    for (String t : new String[] {STAGED, EXPIRED, ORPHAN, MOVED, COMPRESSING, ".stale-", DIGEST_SUFFIX + "."}) {
      if (name.contains(t)) {
        return true;
      }
    }
    return false;
  }

  /** Whether {@code name} is a digest's name. */
  public static boolean isDigest(String name) {
    return name.endsWith(DIGEST_SUFFIX);
  }

  /** Whether {@code name} is a digest's name or a digest's name set aside ({@code .seals.moved-T}, ...). */
  public static boolean namesADigest(String name) {
    return isDigest(name) || name.contains(DIGEST_SUFFIX + ".");
  }

  /** The name of the audit file whose digest is named {@code digestName}. */
  public static String auditFileOf(String digestName) {
    return digestName.substring(0, digestName.length() - DIGEST_SUFFIX.length());
  }

  /**
   * The live file's name of a trail member's name: {@code .N}, {@code .N.gz}, {@code .rotating-T},
   * {@code .compressing-T} or {@code .N.expired-T} ({@code .N.gz.expired-T}) off.
   */
  public static String liveNameOf(String auditFileName) {
    return ROTATION_TAIL.matcher(auditFileName).replaceFirst("");
  }

  /**
   * Whether {@code name} is one of the names the trail of {@code live} uses: the live file, a rotated file, a
   * name a rotation uses on the way, or a digest of any of them, including one set aside at a start or after a
   * move.
   */
  public static boolean isTrailName(Path live, String name) {
    return name.matches(Pattern.quote(live.getFileName().toString()) + "(?:\\.[0-9]{1,9}(?:\\.gz)?)?"
        + "(?:\\.rotating-[0-9]+|\\.expired-[0-9]+|\\.compressing-[0-9]+)?(?:" + Pattern.quote(DIGEST_SUFFIX)
        + "(?:\\.(?:stale|moved)-[0-9]+)?)?");
  }

  /**
   * Matches the live file, its rotated files (compressed or not) and their digests; group 1 is the index (null:
   * the live file), group 2 {@code .gz} for a compressed rotated file.
   */
  public static Pattern numberedPattern(Path live) {
    return Pattern.compile(Pattern.quote(live.getFileName().toString()) + "(?:\\.([0-9]{1,9})(\\.gz)?)?(?:"
        + Pattern.quote(DIGEST_SUFFIX) + ")?");
  }

  /** The index of a name {@link #numberedPattern} matched: 0 for the live file. */
  public static int indexOf(Matcher numbered) {
    return numbered.group(1) == null ? 0 : Integer.parseInt(numbered.group(1));
  }

  /** Matches digests of the trail's files that an older version set aside at a start. */
  public static Pattern staleDigestPattern(Path live) {
    return Pattern.compile(Pattern.quote(live.getFileName().toString()) + "(?:\\.[0-9]{1,9})?"
        + Pattern.quote(DIGEST_SUFFIX) + "\\.stale-[0-9]+");
  }
}
