package io.nnaudit.kafka.verify;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What the check of one source found so far: its findings in order, the change that stopped it, and the counts
 * its summary prints ({@link SourceSummary}); and the exit code they give, as {@code nnaudit verify}'s.
 */
final class SourceFindings {
  static final int MAX_FINDINGS = 1000;

  final String source;
  /** What was found, in order; past {@link #MAX_FINDINGS} only counted, so that memory stays bounded. */
  final List<Finding> findings = new ArrayList<>();
  long findingsLeftOut;
  /** The worst exit code of every finding, those left out included. */
  private int findingsCode;
  /** The first change found: it stops the source's check, as {@code nnaudit verify} stops a trail's. */
  Finding tampering;
  long records;
  long verifiedRecords;
  long seals;
  long duplicates;
  long notCompared;
  /** Records before the first one read, dropped as copies a resend sent again: none was compared. */
  long resentBeforeStart;
  long gaps;
  long files;
  /** Records read before the end of the first seal whose range began before the read: not hashed. */
  long headRecords;
  /** A seal chained after the seal that ended the head verified: the head's seal is in its place in the chain. */
  boolean sealedAfterHead;
  /** Records that such seals sealed and the read did not hold: sent before the read's start. */
  long unreadRecords;
  /** Where the first of those seals' ranges begins (a finding with no text yet), or null. */
  Finding unreadAt;
  /**
   * Whether a line read as new came in a {@code records} record: this source sends lines together, and each offset
   * of the topic its records took may have held up to {@link io.nnaudit.kafka.ShipHeaders#MAX_RECORD_LINES} lines.
   */
  boolean sendsLinesTogether;
  long skipped;
  long firstMillis = -1;
  long lastMillis = -1;
  String anchor;
  /** When the seal {@link #anchor} names was made (ms since the epoch). */
  long anchorMillis;
  final Set<String> keyIds = new LinkedHashSet<>();
  final Set<String> trails = new LinkedHashSet<>();
  String midChain;

  SourceFindings(String source) {
    this.source = source;
  }

  void report(Finding f) {
    findingsCode = Math.max(findingsCode, f.kind.exitCode);
    if (findings.size() < MAX_FINDINGS) {
      findings.add(f);
    } else {
      findingsLeftOut++;
    }
  }

  /** The change found at byte {@code offset} of file {@code f}, shown by {@code r} (null: by no one record). */
  void tamper(StreamRecord r, long f, long offset, String text) {
    tampering = new Finding(Finding.Kind.TAMPERED, source, f, offset, r == null ? null : r.place(), text);
  }

  /** The exit code this source's findings give, as {@code nnaudit verify}'s. */
  int exitCode() {
    if (tampering != null) {
      return 1;
    }
    int code = findingsCode;
    if (notCompared > 0 || resentBeforeStart > 0 || records == 0 && seals == 0) {
      code = Math.max(code, 2);
    }
    return code;
  }
}
