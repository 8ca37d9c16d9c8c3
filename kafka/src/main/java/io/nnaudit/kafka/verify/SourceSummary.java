package io.nnaudit.kafka.verify;

import java.util.ArrayList;
import java.util.List;

import io.nnaudit.seal.Seal;

/** What verify-stream prints for one source: a summary line, its anchor, then each finding. */
final class SourceSummary {
  private SourceSummary() {
  }

  static List<String> lines(SourceFindings c, long fromMillis) {
    List<String> out = new ArrayList<>();
    String counts = c.records + " record" + (c.records == 1 ? "" : "s") + " (" + c.verifiedRecords
        + " verified by " + c.seals + " seal" + (c.seals == 1 ? "" : "s") + "), " + c.files + " file"
        + (c.files == 1 ? "" : "s") + " ended"
        + (c.firstMillis < 0 ? "" : ", shipped from " + Seal.formatTime(c.firstMillis) + " to "
            + Seal.formatTime(c.lastMillis))
        + (c.keyIds.isEmpty() ? "" : ", signed by key " + String.join(", ", c.keyIds));
    int code = c.exitCode();
    if (c.tampering != null) {
      out.add("TAMPERED: " + c.tampering);
      out.add("  verified before it: " + c.source + ": " + counts + (c.skipped > 0 ? "; " + c.skipped
          + " later record(s) of the source not checked" : ""));
    } else {
      out.add((code == 0 ? "verified: " : "verified, with records not verified: ") + c.source + ": " + counts);
    }
    if (c.anchor != null) {
      out.add("  last verified seal: " + c.anchor);
      if (fromMillis >= 0 && c.anchorMillis < fromMillis) {
        out.add("  note: the last verified seal was made at " + Seal.formatTime(c.anchorMillis) + ", before --from: "
            + "no seal the source made after that time was read (what was read may be copies of older records; "
            + "compare the seal with the NameNode's LatestSealHash)");
      }
    }
    String unread = c.unreadRecords > 0 ? "; " + c.unreadRecords + " record(s) sealed up to there were sent before "
        + "the read's start, not read" : "";
    if (c.midChain != null) {
      out.add("  note: " + c.midChain + (c.headRecords > 0 ? "; the " + c.headRecords + " record(s) before "
          + "that seal's end are not verified" : "") + unread);
    } else if (c.headRecords > 0 || c.unreadRecords > 0) { // a read that began in its chain, records sent before it
      out.add("  note: the read began inside the range of its first seal over records: the " + c.headRecords
          + " record(s) read before that seal's end are not verified" + unread);
    }
    if (c.duplicates > 0) {
      out.add("  note: " + c.duplicates + " duplicate(s) dropped (records sent again with the same identity and "
          + "value)");
    }
    for (Finding f : c.findings) {
      out.add(f.kind == Finding.Kind.NOTE ? "  note: " + f : f.kind.label + ": " + f);
    }
    if (c.findingsLeftOut > 0) {
      out.add("  note: " + c.findingsLeftOut + " more finding(s) of " + c.source + " not listed (the first "
          + SourceFindings.MAX_FINDINGS + " are)");
    }
    if (c.notCompared > 0) {
      out.add("NOT VERIFIED: " + c.source + ": " + c.notCompared + " record(s) sent again after more records "
          + "than verify-stream remembers (--window): not compared with the first copy");
    }
    if (c.resentBeforeStart > 0) {
      out.add("NOT VERIFIED: " + c.source + ": " + c.resentBeforeStart + " record(s) before the first record read, "
          + "sent again as a resend sends them: never read here, so not compared (read from an earlier time to "
          + "compare them)");
    }
    return out;
  }
}
