package io.nnaudit.verify;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import io.nnaudit.seal.Seal;
import io.nnaudit.seal.SegmentDigest;
import io.nnaudit.trail.FileLines;

/**
 * Names what changed where a sealed range's bytes differ. A seal covers a range of bytes, so verify names the
 * range whose bytes differ (its first byte and line). To tell the kind, it looks for where the next sealed range
 * starts now (at the sealed offset, or a few records earlier or later) and compares what lies between with what
 * the seals say was there: the same length and the same records in another order is a reordering; the same
 * length otherwise, a modification; more records, an insertion; fewer, a deletion; a file that ends inside its
 * sealed ranges, a truncation. A file whose first sealed bytes are another file's is named as renamed or swapped
 * ({@link SwappedFiles}). Stateless apart from the trail; reads the files again on each call.
 */
final class ChangeClassifier {
  /** How many records around the sealed count verify tries when it looks for where the next range starts. */
  private static final int SHIFT = 3;

  private final TrailFiles files;
  private final SwappedFiles swapped;

  ChangeClassifier(TrailFiles files, SwappedFiles swapped) {
    this.files = files;
    this.swapped = swapped;
  }

  /**
   * The bytes of {@code s}'s range differ: finds out how, as described in the class comment. {@code line} is
   * the line at which the range starts; everything before it verified. A rotated file whose last seal closed
   * it (rotated or moved away) may hold nothing after its sealed bytes.
   */
  Problem classify(FileChannel ch, long size, Seal s, Path f, long line, Path d, boolean isLive) throws IOException {
    long c = s.from;
    if (c == 0) {
      Problem moved = swapped.identify(ch, size, f);
      if (moved != null) {
        return moved;
      }
    }
    List<Seal> ranges = new ArrayList<>();
    ranges.add(s);
    ranges.addAll(DigestReader.laterSeals(files.at(d), s));
    Seal last = ranges.get(ranges.size() - 1);
    // a rotated file sealed for good; the live file's last seal says rotate when that rotation failed
    boolean closed = !isLive && (last.kind == Seal.Kind.ROTATE || last.kind == Seal.Kind.MOVED);
    Problem p = reordering(ch, size, ranges, f, line);
    if (p != null) {
      return p;
    }
    // Where does a later range start now? At its sealed offset, or a few records before or after.
    Totals sealed = new Totals();
    for (int j = 1; j < ranges.size(); j++) {
      sealed.add(ranges.get(j - 1));
      Seal next = ranges.get(j);
      if (next.to == next.from) {
        continue;
      }
      for (long start : candidates(ch, c, sealed.records, next.from)) {
        long len = next.to - next.from;
        if (start >= c && start + len <= size && AuditBytes.matches(AuditBytes.digestOf(ch, start, start + len),
            next)) {
          return describe(f, c, line, AuditBytes.digestOf(ch, c, start), sealed, s, false);
        }
      }
    }
    sealed.add(last);
    // No later range is intact: where do the last range's records end now? Its last record, found by its
    // checksum a few records before or after where it was, says; else the sealed end, or the file's end.
    long lastLine = 0; // the checksum of the last record sealed: in the last range that has records
    for (Seal r : ranges) {
      if (r.records > 0) {
        lastLine = r.lastLine;
      }
    }
    long end = endOfLastRecord(ch, c, sealed.records, lastLine);
    if (end >= 0 && (!closed || end == size)) {
      return describe(f, c, line, AuditBytes.digestOf(ch, c, end), sealed, s, true);
    }
    if (size < last.to) {
      SegmentDigest actual = AuditBytes.digestOf(ch, c, size);
      boolean midRecord = size > 0 && AuditBytes.byteAt(ch, size - 1) != '\n';
      if (midRecord || actual.records() >= sealed.records) {
        return new Problem(Problem.Kind.TRUNCATED, f, c, line, "the file ends at byte " + size + (midRecord
            ? " in the middle of a record" : "") + ", inside the range sealed by seal " + s.number + " and after "
            + "(sealed up to byte " + last.to + ")", -1);
      }
      return describe(f, c, line, actual, sealed, s, true);
    }
    return describe(f, c, line, AuditBytes.digestOf(ch, c, closed ? size : last.to), sealed, s, true);
  }

  /** Bytes, records and checksum sum of sealed ranges taken together. */
  private static final class Totals {
    long bytes;
    long records;
    long sum;

    void add(Seal s) {
      bytes += s.to - s.from;
      records += s.records;
      sum += s.lineSum;
    }
  }

  /**
   * Records put in another order: from the changed range up to the start of a later range that is intact
   * where it was sealed (or up to the sealed end), the same bytes count, the same records count and the same
   * sum of record checksums, with other bytes.
   */
  private static Problem reordering(FileChannel ch, long size, List<Seal> ranges, Path f, long line)
      throws IOException {
    long c = ranges.get(0).from;
    SegmentDigest actual = new SegmentDigest();
    Totals sealed = new Totals();
    long fed = c;
    for (int j = 0; j < ranges.size(); j++) {
      Seal r = ranges.get(j);
      sealed.add(r);
      if (r.to > size) {
        return null;
      }
      actual.update(ch, fed, r.to);
      fed = r.to;
      boolean intactAfter = j + 1 == ranges.size() || AuditBytes.rangeMatches(ch, size, ranges.get(j + 1));
      if (intactAfter && actual.records() == sealed.records && actual.lineSum() == sealed.sum) {
        return new Problem(Problem.Kind.RECORDS_REORDERED, f, c, line, "the " + sealed.records + " records sealed "
            + "from byte " + c + " (seal " + ranges.get(0).number + ") to byte " + r.to + " are all there, in "
            + "another order", sealed.records);
      }
    }
    return null;
  }

  /**
   * The offset just after the record whose checksum is {@code lastLine}, looked for among the records
   * {@code records - SHIFT} to {@code records + SHIFT} from {@code c} (the last of them that has it); -1 when
   * none has it.
   */
  private static long endOfLastRecord(FileChannel ch, long c, long records, long lastLine) throws IOException {
    if (records == 0) {
      return -1;
    }
    long from = Math.max(0, records - 1 - SHIFT);
    long start = FileLines.afterLines(ch, c, from);
    long found = -1;
    for (long i = from; start >= 0 && i <= records - 1 + SHIFT; i++) {
      long next = FileLines.afterLines(ch, start, 1);
      if (next < 0) {
        break;
      }
      SegmentDigest one = AuditBytes.digestOf(ch, start, next);
      if (one.lastLineHash() == lastLine) {
        found = next; // the last in the window: a copy of the last record put before it is an insertion
      }
      start = next;
    }
    return found;
  }

  /** Where the range after the changed ones may start now: its sealed offset, or after a few records more or less. */
  private static Set<Long> candidates(FileChannel ch, long c, long records, long sealedOffset) throws IOException {
    Set<Long> out = new LinkedHashSet<>();
    out.add(sealedOffset);
    for (int d = -SHIFT; d <= SHIFT; d++) {
      if (records + d >= 0) {
        long o = FileLines.afterLines(ch, c, records + d);
        if (o >= 0) {
          out.add(o);
        }
      }
    }
    return out;
  }

  private static Problem describe(Path f, long c, long line, SegmentDigest actual, Totals sealed, Seal s,
      boolean toTheEnd) {
    String where = "the range sealed by seal " + s.number + (toTheEnd ? " and after" : "") + " (from byte " + c
        + ", line " + line + ")";
    Problem.Kind kind;
    String what;
    if (actual.bytes() == sealed.bytes) {
      kind = Problem.Kind.MODIFIED;
      what = "its " + Plural.of(sealed.records, "record") + " (" + sealed.bytes + " bytes) differ from what was "
          + "sealed";
    } else {
      kind = actual.records() > sealed.records ? Problem.Kind.RECORDS_INSERTED
          : actual.records() < sealed.records ? Problem.Kind.RECORDS_DELETED : Problem.Kind.MODIFIED;
      what = Plural.of(sealed.records, "record") + " of " + sealed.bytes + " bytes were sealed, " + actual.records()
          + " of " + actual.bytes() + " bytes are there";
    }
    return new Problem(kind, f, c, line, where + ": " + what, Math.abs(actual.records() - sealed.records));
  }
}
