package io.nnaudit.seal;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What {@code nnaudit verify} found in one trail (an audit file and its rotated files): how much verified, the
 * first change found (verification stops there), and the unsealed parts, which are not changes.
 */
public final class VerifyReport {
  public static final int VERIFIED = 0;
  public static final int TAMPERED = 1;
  public static final int UNSEALED = 2;

  public final Path trail;
  final List<Problem> unsealed = new ArrayList<>();
  Problem tampering;
  int files;
  long records;
  long firstMillis = -1;
  long lastMillis = -1;
  /** Records sealed at a start-up after an earlier run left them unsealed (killed), or adopted unsealed. */
  long sealedLate;
  String lastSealHash;
  /** What the reader should know about how the trail was read (an interrupted rotation read as finished). */
  final List<String> notes = new ArrayList<>();

  VerifyReport(Path trail) {
    this.trail = trail;
  }

  /** The first change found, or null. */
  public Problem tampering() {
    return tampering;
  }

  /** Unsealed tails and files, in trail order (oldest first). */
  public List<Problem> unsealed() {
    return Collections.unmodifiableList(unsealed);
  }

  /** Files whose seals verified. */
  public int files() {
    return files;
  }

  /** Records the verified seals cover. */
  public long records() {
    return records;
  }

  /** The SHA-256 of the last seal that verified, or null. */
  public String lastSealHash() {
    return lastSealHash;
  }

  /** 0 verified, 1 tampered, 2 unsealed records but nothing changed. */
  public int exitCode() {
    return tampering != null ? TAMPERED : unsealed.isEmpty() ? VERIFIED : UNSEALED;
  }

  /** What verify prints for this trail. */
  public List<String> lines() {
    List<String> out = new ArrayList<>();
    String summary = TrailVerifier.count(files, "file") + ", " + TrailVerifier.count(records, "record")
        + (firstMillis < 0 ? "" : ", from " + Seal.formatTime(firstMillis) + " to " + Seal.formatTime(lastMillis))
        + (sealedLate > 0 ? " (" + sealedLate + " of them sealed at a later start: written after the last seal of a "
            + "run that was killed, or before sealing was turned on)" : "");
    if (tampering != null) {
      out.add("TAMPERED: " + tampering);
      out.add("  verified before it: " + summary);
    } else {
      out.add((unsealed.isEmpty() ? "verified: " : "verified, with unsealed records: ") + summary + " (trail "
          + trail + ")");
    }
    for (Problem p : unsealed) {
      out.add("UNSEALED: " + p);
    }
    if (lastSealHash != null) {
      out.add("  last verified seal: " + lastSealHash);
    }
    for (String n : notes) {
      out.add("  note: " + n);
    }
    return out;
  }
}
