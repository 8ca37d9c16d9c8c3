package io.nnaudit.seal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One seal: a line of a digest file that vouches for a byte range of one audit file. Immutable.
 *
 * <pre>
 * nnaudit-seal v=2 trail=T file=F oldest=O seal=N kind=K from=A to=B records=R lines=L last=E sha256=H since=T0 time=T1
 *     tail=TR+TB prev=P alg=ALG key=ID sig=S
 * </pre>
 * (one line, fields in this order, separated by single spaces):
 * <ul>
 * <li>{@code trail}: the chain's identity, a random UUID made when the chain began;</li>
 * <li>{@code file}: the audit file's number in the chain, one more for each new file;</li>
 * <li>{@code oldest}: the number of the oldest file the trail still holds: rotation deletes the oldest files
 * past {@code nnaudit.file.max.backups}, and a file older than this one may be gone, a newer one may not;</li>
 * <li>{@code seal}: the seal's number in the chain, one more for each seal;</li>
 * <li>{@code kind}: why it was written ({@link Kind});</li>
 * <li>{@code from}, {@code to}: the byte range {@code [from, to)} of the file it covers, which starts where
 * the file's previous seal ended (at 0 for the first);</li>
 * <li>{@code records}: the lines in that range; {@code lines}: the order-free sum of their checksums
 * ({@link SegmentDigest}); {@code last}: the checksum of the range's last line (0 for none), by which verify
 * finds where the range's records end when records were inserted or deleted; {@code sha256}: the hash of the
 * range's bytes;</li>
 * <li>{@code since}, {@code time}: when the previous seal of the chain was written (or the chain began) and
 * when this one was, UTC;</li>
 * <li>{@code tail}: the most the run that wrote this seal can leave after it unsealed if it is killed: at most
 * {@code TR} records, then at most {@code TB} bytes more (the seal interval in records, then the bytes the
 * sealing thread may not yet have hashed: see {@link Sealer#TAIL_BYTES}). A later start seals no more than that
 * as a crash's tail ({@link Kind#RECOVER}); verify reports anything beyond it as inserted. Version 1 seals
 * have no such field, and no bound;</li>
 * <li>{@code prev}: the SHA-256 of the previous seal's whole line ({@link #hash}), 64 zeros for the first
 * seal of a chain;</li>
 * <li>{@code alg}, {@code key}: the signature algorithm and the signing key's id ({@link SealKey#keyId});</li>
 * <li>{@code sig}: the signature, Base64, over the line up to the space before {@code sig=}. An ECDSA signature
 * is written in one form only (DER of the smallest encoding, with the low {@code s}: see {@link SealKey}), so
 * that no one without the key can change a seal line, signature bytes included, and keep it valid.</li>
 * </ul>
 * Version 1 lines (without {@code tail}) are still read, so that trails sealed before are verified.
 */
public final class Seal {
  public static final String MAGIC = "nnaudit-seal";
  public static final int VERSION = 2;
  /** The {@code prev} of the first seal of a chain. */
  public static final String GENESIS = repeat('0', 64);

  /** Why a seal was written. */
  public enum Kind {
    /** A new, empty audit file: links it to the chain before anything is written to it. */
    OPEN,
    /** The interval in records or time was reached. */
    INTERVAL,
    /** Before the file is rotated away: its last seal. */
    ROTATE,
    /** The pipeline closed (a stop, a re-initialize). */
    CLOSE,
    /** After the shutdown hook, each record a handler writes itself is sealed at once. */
    FLUSH,
    /**
     * At start-up: records an earlier run wrote after its last seal (it was killed), sealed now; no more than
     * that run's last seal allows ({@code tail}). Sealed by a later run, not the one that wrote them.
     */
    RECOVER,
    /** At start-up: a file found without a digest (sealing just turned on, or its digest lost), sealed now. */
    ADOPT,
    /** The file was moved away by something else: its last seal before a new file is started. */
    MOVED,
    /**
     * At start-up: the file held nothing after its last seal (closed, or killed with nothing unsealed): the run
     * that writes this seal starts here. Covers no bytes.
     */
    RESUME,
    /**
     * At start-up: the file does not hold what its seals say (bytes after a close seal, more than a crash can
     * leave, or sealed bytes changed or cut). The seal records what was found, for the next run's records to
     * follow it, and vouches for none of it: verify reports the trail as changed. Its range is the bytes after
     * the last seal the file still holds as sealed, when it holds them all (records inserted: after a close, or
     * after the crash tail a RECOVER seal took, or all of the tail when that RECOVER could not be written), else
     * the whole file as found ({@code from=0}).
     */
    FOUND;

    public String text() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }

    static Kind parse(String s) {
      for (Kind k : values()) {
        if (k.text().equals(s)) {
          return k;
        }
      }
      throw new IllegalArgumentException("unknown kind '" + s + "'");
    }
  }

  private static final String[] FIELDS_V1 = {"v", "trail", "file", "oldest", "seal", "kind", "from", "to",
      "records", "lines", "last", "sha256", "since", "time", "prev", "alg", "key", "sig"};
  private static final String[] FIELDS = {"v", "trail", "file", "oldest", "seal", "kind", "from", "to", "records",
      "lines", "last", "sha256", "since", "time", "tail", "prev", "alg", "key", "sig"};
  /** A tail bound that bounds nothing: version 1 seals. */
  static final long UNBOUNDED = Long.MAX_VALUE;
  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'")
      .withZone(ZoneOffset.UTC);

  /** The line's format version: {@link #VERSION}, or 1 for a seal read from an older trail. */
  public final int version;
  public final String trail;
  public final long file;
  public final long oldest;
  public final long number;
  public final Kind kind;
  public final long from;
  public final long to;
  public final long records;
  public final long lineSum;
  public final long lastLine;
  public final String sha256;
  public final long sinceMillis;
  public final long timeMillis;
  /** The crash tail this seal allows: records, then bytes ({@link #UNBOUNDED} for version 1). */
  public final long tailRecords;
  public final long tailBytes;
  public final String prev;
  public final String algorithm;
  public final String keyId;
  /** The signature, Base64; null in a seal not yet signed. */
  public final String signature;

  private Seal(int version, String trail, long file, long oldest, long number, Kind kind, long from, long to,
      long records, long lineSum, long lastLine, String sha256, long sinceMillis, long timeMillis, long tailRecords,
      long tailBytes, String prev, String algorithm, String keyId, String signature) {
    this.version = version;
    this.trail = trail;
    this.file = file;
    this.oldest = oldest;
    this.number = number;
    this.kind = kind;
    this.from = from;
    this.to = to;
    this.records = records;
    this.lineSum = lineSum;
    this.lastLine = lastLine;
    this.sha256 = sha256;
    this.sinceMillis = sinceMillis;
    this.timeMillis = timeMillis;
    this.tailRecords = tailRecords;
    this.tailBytes = tailBytes;
    this.prev = prev;
    this.algorithm = algorithm;
    this.keyId = keyId;
    this.signature = signature;
  }

  /** An unsigned seal that allows no crash tail; {@link #signedWith} signs it. */
  public static Seal unsigned(String trail, long file, long oldest, long number, Kind kind, long from, long to,
      long records,
      long lineSum, long lastLine, byte[] sha256, long sinceMillis, long timeMillis, String prev) {
    return unsigned(trail, file, oldest, number, kind, from, to, records, lineSum, lastLine, sha256, sinceMillis,
        timeMillis, 0, 0, prev);
  }

  /** An unsigned seal allowing a crash tail of {@code tailRecords} records, then {@code tailBytes} bytes. */
  public static Seal unsigned(String trail, long file, long oldest, long number, Kind kind, long from, long to,
      long records, long lineSum, long lastLine, byte[] sha256, long sinceMillis, long timeMillis, long tailRecords,
      long tailBytes, String prev) {
    return new Seal(VERSION, trail, file, oldest, number, kind, from, to, records, lineSum, lastLine, hex(sha256),
        sinceMillis, timeMillis, tailRecords, tailBytes, prev, null, null, null);
  }

  /** This seal with the algorithm and id of {@code key} and its signature over {@link #signedText}. */
  public Seal signedWith(SealKey key) throws java.security.GeneralSecurityException {
    Seal body = new Seal(version, trail, file, oldest, number, kind, from, to, records, lineSum, lastLine, sha256,
        sinceMillis, timeMillis, tailRecords, tailBytes, prev, key.algorithm(), key.keyId(), null);
    byte[] sig = key.sign(body.signedText().getBytes(StandardCharsets.UTF_8));
    return new Seal(version, trail, file, oldest, number, kind, from, to, records, lineSum, lastLine, sha256,
        sinceMillis, timeMillis, tailRecords, tailBytes, prev, key.algorithm(), key.keyId(),
        Base64.getEncoder().encodeToString(sig));
  }

  /** Whether {@code key} made this seal's signature over its text. */
  public boolean signatureValid(SealKey key) {
    try {
      return signature != null && key.verify(signedText().getBytes(StandardCharsets.UTF_8),
          Base64.getDecoder().decode(signature), version >= 2);
    } catch (IllegalArgumentException | java.security.GeneralSecurityException e) {
      return false;
    }
  }

  /** The text the signature covers: the line up to the space before {@code sig=}. */
  public String signedText() {
    return MAGIC + " v=" + version + " trail=" + trail + " file=" + file + " oldest=" + oldest + " seal=" + number
        + " kind=" + kind.text()
        + " from=" + from + " to=" + to + " records=" + records + " lines=" + String.format("%016x", lineSum)
        + " last=" + String.format("%016x", lastLine)
        + " sha256=" + sha256 + " since=" + TIME.format(Instant.ofEpochMilli(sinceMillis)) + " time="
        + TIME.format(Instant.ofEpochMilli(timeMillis))
        + (version >= 2 ? " tail=" + tailRecords + "+" + tailBytes : "") + " prev=" + prev + " alg=" + algorithm
        + " key=" + keyId;
  }

  /** The whole line, without its newline. */
  public String line() {
    return signedText() + " sig=" + signature;
  }

  /** The SHA-256 of {@link #line}, hex: the next seal's {@code prev}, and what is anchored off the host. */
  public String hash() {
    return hex(sha256(line().getBytes(StandardCharsets.UTF_8)));
  }

  /** The time of a seal as it is written in one. */
  public static String formatTime(long millis) {
    return TIME.format(Instant.ofEpochMilli(millis));
  }

  /**
   * Reads a seal line (without its newline). Throws {@link IllegalArgumentException} saying what is wrong
   * when the line is not a seal exactly as {@link #line} writes it: a line that parses prints back the same.
   */
  public static Seal parse(String line) {
    if (!line.startsWith(MAGIC + " ")) {
      throw new IllegalArgumentException("not a seal: it does not start with '" + MAGIC + " '");
    }
    if (line.length() > DigestFile.MAX_LINE) {
      throw new IllegalArgumentException("a seal is a few hundred bytes, this line " + line.length());
    }
    String[] parts = line.substring(MAGIC.length() + 1).split(" ", -1);
    int version = parts[0].equals("v=1") ? 1 : parts[0].equals("v=" + VERSION) ? VERSION : -1;
    if (version < 0) {
      throw new IllegalArgumentException("unknown seal version " + parts[0]);
    }
    String[] fields = version == 1 ? FIELDS_V1 : FIELDS;
    if (parts.length != fields.length) {
      throw new IllegalArgumentException("a seal has " + fields.length + " fields, this line " + parts.length);
    }
    Map<String, String> f = new LinkedHashMap<>();
    for (int i = 0; i < parts.length; i++) {
      String want = fields[i] + "=";
      if (!parts[i].startsWith(want)) {
        throw new IllegalArgumentException("field " + (i + 1) + " should be " + fields[i] + "=...");
      }
      f.put(fields[i], parts[i].substring(want.length()));
    }
    Seal s;
    try {
      long tailRecords = UNBOUNDED;
      long tailBytes = UNBOUNDED;
      if (version >= 2) {
        String[] tail = f.get("tail").split("\\+", -1);
        if (tail.length != 2) {
          throw new NumberFormatException("tail is not RECORDS+BYTES");
        }
        tailRecords = Long.parseLong(tail[0]);
        tailBytes = Long.parseLong(tail[1]);
      }
      s = new Seal(version, f.get("trail"), Long.parseLong(f.get("file")), Long.parseLong(f.get("oldest")),
          Long.parseLong(f.get("seal")),
          Kind.parse(f.get("kind")), Long.parseLong(f.get("from")), Long.parseLong(f.get("to")),
          Long.parseLong(f.get("records")), Long.parseUnsignedLong(f.get("lines"), 16),
          Long.parseUnsignedLong(f.get("last"), 16), f.get("sha256"),
          Instant.parse(f.get("since")).toEpochMilli(), Instant.parse(f.get("time")).toEpochMilli(), tailRecords,
          tailBytes, f.get("prev"), f.get("alg"), f.get("key"), f.get("sig"));
    } catch (NumberFormatException | java.time.DateTimeException | ArithmeticException e) {
      // (ArithmeticException: a time past 2^63 ms, which Instant reads and toEpochMilli cannot hold)
      throw new IllegalArgumentException("a field does not parse: " + e.getMessage(), e);
    }
    try {
      if (!Base64.getEncoder().encodeToString(Base64.getDecoder().decode(s.signature)).equals(s.signature)) {
        throw new IllegalArgumentException("the signature is not written as Base64 writes it");
      }
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("the signature is not Base64: " + e.getMessage(), e);
    }
    if (!s.line().equals(line)) {
      throw new IllegalArgumentException("the line is not written as a seal is (a field was changed by hand?)");
    }
    if (s.version == 1 && (s.kind == Kind.RESUME || s.kind == Kind.FOUND)) {
      throw new IllegalArgumentException("kind " + s.kind.text() + " is not a version 1 kind");
    }
    if (s.from < 0 || s.to < s.from || s.records < 0 || s.tailRecords < 0 || s.tailBytes < 0) {
      throw new IllegalArgumentException("the range " + s.from + "-" + s.to + " is not a range");
    }
    return s;
  }

  /** The SHA-256 of {@code b}. */
  public static byte[] sha256(byte[] b) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(b);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java has SHA-256", e);
    }
  }

  /** {@code b} in lower-case hex, two digits a byte. */
  public static String hex(byte[] b) {
    StringBuilder sb = new StringBuilder(b.length * 2);
    for (byte x : b) {
      sb.append(Character.forDigit((x >> 4) & 0xf, 16)).append(Character.forDigit(x & 0xf, 16));
    }
    return sb.toString();
  }

  private static String repeat(char c, int n) {
    char[] a = new char[n];
    java.util.Arrays.fill(a, c);
    return new String(a);
  }

  @Override
  public String toString() {
    return line();
  }
}
