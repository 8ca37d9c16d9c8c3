package io.nnaudit.kafka.verify;

import io.nnaudit.seal.Seal;

/**
 * What a seal made at a start says about the records it covers, read as {@code nnaudit verify} reads it: a
 * {@code found} seal records bytes no run wrote; anything but a start's {@code resume} after a {@code close} seal
 * of the same file seals records written where nothing writes; {@code recover} and {@code adopt} over records seal
 * them late (by a later run than the one that wrote them). What {@code verify} checks further on the host (that a
 * {@code recover} stays within the killed run's crash tail) needs the file's bytes before the seal, and is left to
 * it. Stateless.
 */
final class StartOfRunSeal {
  private StartOfRunSeal() {
  }

  /**
   * The change {@code s} shows after {@code before} (the chain's last seal, or null), or null;
   * {@code fileSealed}: whether a seal of the same file came before it.
   */
  static String change(Seal before, Seal s, boolean fileSealed) {
    if (s.kind == Seal.Kind.FOUND) {
      return (fileSealed ? "records inserted: " : "modified bytes: ") + "the source's start at "
          + Seal.formatTime(s.timeMillis) + " found " + s.records + " record(s) (bytes " + s.from + "-" + s.to
          + ") that no run wrote (seal " + s.number + ", found)";
    }
    boolean afterClose = before != null && before.kind == Seal.Kind.CLOSE && before.file == s.file
        && before.trail.equals(s.trail);
    if (afterClose && (s.kind == Seal.Kind.RECOVER || s.version >= 2 && s.kind != Seal.Kind.RESUME)) {
      return "records inserted: " + s.records + " record(s) after seal " + before.number + ", which closed the "
          + "file, sealed by seal " + s.number + " (" + s.kind.text() + ")";
    }
    return null;
  }

  /** Whether {@code s} sealed records late: a start's seal over records an earlier run wrote. */
  static boolean sealedLate(Seal s) {
    return (s.kind == Seal.Kind.RECOVER || s.kind == Seal.Kind.ADOPT) && s.records > 0;
  }
}
