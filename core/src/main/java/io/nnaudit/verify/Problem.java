package io.nnaudit.verify;

import java.nio.file.Path;

/** One thing {@code nnaudit verify} found: what, where, and whether it means the trail was changed. Immutable. */
public final class Problem {
  /** The kinds of problem verify reports. */
  public enum Kind {
    MODIFIED("modified bytes", true),
    RECORDS_INSERTED("records inserted", true),
    RECORDS_DELETED("records deleted", true),
    RECORDS_REORDERED("records reordered", true),
    TRUNCATED("truncated file", true),
    FILE_MISSING("missing file", true),
    FILES_OUT_OF_ORDER("files out of order", true),
    FOREIGN_FILE("file from another trail", true),
    DIGEST_MISSING("missing digest", true),
    SEAL_ALTERED("altered seal", true),
    BAD_SIGNATURE("bad signature", true),
    ANCHOR_MISSING("anchored seal missing", true),
    UNSEALED_TAIL("unsealed tail", false),
    UNSEALED_FILE("unsealed file", false),
    /** Records a later start sealed, not the run that wrote them (a killed run's tail, an adopted file). */
    SEALED_LATE("sealed late", false),
    /** In a directory: a file that looks like an audit file or a digest and belongs to no trail verified. */
    UNACCOUNTED("not in a sealed trail", false);

    public final String text;
    /** Whether this kind means the trail was changed (exit 1), rather than left unsealed (exit 2). */
    public final boolean tampering;

    Kind(String text, boolean tampering) {
      this.text = text;
      this.tampering = tampering;
    }
  }

  public final Kind kind;
  public final Path file;
  /** The byte offset in {@link #file} where the problem starts, or -1 when it has none (a missing file). */
  public final long offset;
  /** The 1-based line at {@link #offset}, or -1. */
  public final long line;
  /** What exactly, in words. */
  public final String detail;
  /** Records the problem concerns (an unsealed tail's), or -1. */
  public final long records;

  public Problem(Kind kind, Path file, long offset, long line, String detail, long records) {
    this.kind = kind;
    this.file = file;
    this.offset = offset;
    this.line = line;
    this.detail = detail;
    this.records = records;
  }

  /** {@code FILE at byte N (line L): KIND: DETAIL}. */
  @Override
  public String toString() {
    return file + (offset >= 0 ? " at byte " + offset + (line > 0 ? " (line " + line + ")" : "") : "") + ": "
        + kind.text + ": " + detail;
  }
}
