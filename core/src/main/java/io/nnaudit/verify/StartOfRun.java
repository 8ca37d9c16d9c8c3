package io.nnaudit.verify;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

import io.nnaudit.seal.CrashTail;
import io.nnaudit.seal.Seal;

/**
 * What a seal made at a start says about the records before it: a start's own seal (RESUME) vouches for nothing;
 * records a later start sealed (RECOVER after a killed run, ADOPT of a file without seals) are sealed late, within
 * what the killed run's last seal allows ({@link CrashTail}); FOUND, and anything but a start's seal after a close
 * seal, means records were put where no run wrote them. Stateless.
 */
final class StartOfRun {
  private StartOfRun() {
  }

  /**
   * Checks seal {@code s} of file {@code f}, whose range starts at {@code line}, after {@code before} (the file's
   * previous seal, or null): the change it shows, or null when the seal is right; records it sealed late are
   * added to {@code r}.
   */
  static Problem check(FileChannel ch, Seal before, Seal s, Path f, long line, VerifyReport r) throws IOException {
    boolean afterClose = before != null && before.kind == Seal.Kind.CLOSE;
    if (s.kind == Seal.Kind.FOUND) {
      boolean inserted = before != null && s.from == before.to;
      return new Problem(inserted ? Problem.Kind.RECORDS_INSERTED : Problem.Kind.MODIFIED, f, s.from, line,
          inserted ? Plural.of(s.records, "record") + " (bytes " + s.from + "-" + s.to + ") were found after seal "
              + before.number + " at " + Seal.formatTime(s.timeMillis) + " (by a start, or as the file was reopened), "
              + "where no run wrote them: " + (afterClose ? "after a close seal" : "more than a killed run can leave "
              + "unsealed, or written by something else")
          : "the start at " + Seal.formatTime(s.timeMillis) + " found the file (" + s.to + " bytes) not holding what "
              + "its seals say", s.records);
    }
    if (afterClose && (s.kind == Seal.Kind.RECOVER || s.version >= 2 && s.kind != Seal.Kind.RESUME)) {
      return new Problem(Problem.Kind.RECORDS_INSERTED, f, s.from, line, Plural.of(s.records, "record") + " after "
          + "seal " + before.number + ", which closed the file, sealed by seal " + s.number + " (" + s.kind.text()
          + ") with no start's seal between them", s.records);
    }
    if (s.kind == Seal.Kind.RECOVER && before != null) {
      long allowed = CrashTail.end(ch, before, s.to);
      if (allowed < s.to) {
        long beyond = AuditBytes.countLines(ch, allowed, s.to);
        return new Problem(Problem.Kind.RECORDS_INSERTED, f, allowed, line + AuditBytes.countLines(ch, s.from, allowed),
            Plural.of(beyond, "record") + " sealed as recovered beyond what a killed run can leave after seal "
            + before.number + " (" + before.tailRecords + " records, then " + before.tailBytes + " bytes)", beyond);
      }
    }
    if (s.kind == Seal.Kind.ADOPT && s.records == 0 && !Seal.GENESIS.equals(s.prev)) {
      r.late.add(new Problem(Problem.Kind.SEALED_LATE, f, -1, -1, "file " + s.file + " of the trail was begun by "
          + "the start at " + Seal.formatTime(s.timeMillis) + " (seal " + s.number + ", adopt), not by the rotation "
          + "before it: that rotation was killed before it began the file, or the file and its digest were "
          + "deleted", 0));
    }
    if ((s.kind == Seal.Kind.RECOVER || s.kind == Seal.Kind.ADOPT) && s.records > 0) {
      r.late.add(new Problem(Problem.Kind.SEALED_LATE, f, s.from, line, Plural.of(s.records, "record") + " sealed at "
          + "the start at " + Seal.formatTime(s.timeMillis) + (s.kind == Seal.Kind.RECOVER ? ", after the run "
          + "that wrote them was killed (seal " + s.number + ", recover)" : ", which found the file without a "
          + "digest (seal " + s.number + ", adopt): sealing was just turned on, or the digest was removed"),
          s.records));
    }
    return null;
  }
}
