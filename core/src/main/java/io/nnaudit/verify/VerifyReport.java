package io.nnaudit.verify;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import io.nnaudit.seal.Seal;

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
  /** Records sealed by a later start than the run that wrote them (RECOVER, ADOPT seals), oldest first. */
  final List<Problem> late = new ArrayList<>();
  /** Whether the reader accepts records sealed late (verify --accept-late): listed, but not exit 2. */
  final boolean acceptLate;
  Problem tampering;
  int files;
  long records;
  long firstMillis = -1;
  long lastMillis = -1;
  String lastSealHash;
  /** The files verify read or reported for this trail (absolute paths): what a directory's account counts. */
  final java.util.Set<Path> accounted = new java.util.HashSet<>();
  /** What the reader should know about how the trail was read (an interrupted rotation read as finished). */
  final List<String> notes = new ArrayList<>();

  VerifyReport(Path trail, boolean acceptLate) {
    this.trail = trail;
    this.acceptLate = acceptLate;
  }

  /** Records sealed late, each with its place (see {@link Problem.Kind#SEALED_LATE}). */
  public List<Problem> late() {
    return Collections.unmodifiableList(late);
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

  /**
   * 0 verified: every record sealed by the run that wrote it (or sealed late and accepted); 1 tampered; 2 nothing
   * changed, but records are unsealed or were sealed late.
   */
  public int exitCode() {
    return tampering != null ? TAMPERED : unsealed.isEmpty() && (late.isEmpty() || acceptLate) ? VERIFIED
        : UNSEALED;
  }

  /** What verify prints for this trail. */
  public List<String> lines() {
    List<String> out = new ArrayList<>();
    long sealedLate = 0;
    for (Problem p : late) {
      sealedLate += p.records;
    }
    String summary = Plural.of(files, "file") + ", " + Plural.of(records, "record")
        + (firstMillis < 0 ? "" : ", from " + Seal.formatTime(firstMillis) + " to " + Seal.formatTime(lastMillis))
        + (sealedLate > 0 ? " (" + sealedLate + " of them sealed late, by a later start than the run that wrote "
            + "them)" : "");
    if (tampering != null) {
      out.add("TAMPERED: " + tampering);
      out.add("  verified before it: " + summary);
    } else {
      boolean lateCounts = !late.isEmpty() && !acceptLate;
      out.add((unsealed.isEmpty() && !lateCounts ? "verified: " : unsealed.isEmpty() ? "verified, with records "
          + "sealed late: " : "verified, with unsealed records: ") + summary + " (trail " + trail + ")");
    }
    for (Problem p : late) {
      out.add((acceptLate ? "SEALED LATE (accepted): " : "SEALED LATE: ") + p);
    }
    for (Problem p : unsealed) {
      out.add((p.kind == Problem.Kind.UNACCOUNTED ? "NOT VERIFIED: " : "UNSEALED: ") + p);
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
