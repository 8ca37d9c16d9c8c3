package io.nnaudit.kafka.verify;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import io.nnaudit.kafka.ShipHeaders;
import io.nnaudit.seal.SealKey;

/**
 * The records of the whole topic, each handed to the check of its source ({@link SourceCheck}); at the end, what
 * no single source can see (one seal chain under two sources), and the report with its exit code.
 */
final class StreamCheck {
  /** Where records that name no source are reported. */
  static final String NO_SOURCE = "(no source)";

  private final Map<String, SealKey> keys;
  /** Keys bound to a source (--cert NS/NN=CERT): its seals must be signed by one of them. */
  private final Map<String, Map<String, SealKey>> sourceKeys;
  private final boolean acceptLate;
  private final Set<String> only;
  private final int maxPending;
  private final int window;
  private final Map<String, SourceCheck> sources = new TreeMap<>();
  /** Seals whose identity and hash each source remembers (fewer only in tests). */
  int sealsRemembered = SourceCheck.SEALS_REMEMBERED;

  /** {@code only}: the sources to check (empty: all). */
  StreamCheck(Map<String, SealKey> keys, Map<String, Map<String, SealKey>> sourceKeys, boolean acceptLate,
      Set<String> only, int maxPending, int window) {
    this.keys = keys;
    this.sourceKeys = sourceKeys;
    this.acceptLate = acceptLate;
    this.only = only;
    this.maxPending = maxPending;
    this.window = window;
  }

  /**
   * Hands {@code r} to its source's check. Every source is checked, also those not asked for with --source:
   * the sources of a partition share the offsets that bound what was sent before the read.
   */
  void accept(StreamRecord r) {
    String name = r.source != null ? r.source : r.key != null ? r.key : NO_SOURCE;
    if (r.key != null && only.contains(r.key)) {
      name = r.key; // a record under this key that says it is another source's: the key's source reports it
    }
    SourceCheck c = sources.get(name);
    if (c == null) {
      c = new SourceCheck(name, sourceKeys.getOrDefault(name, keys), acceptLate, maxPending, window,
          sealsRemembered);
      sources.put(name, c);
    }
    c.accept(r);
  }

  /**
   * Records that the first seals read sealed and the read did not hold were sent before its start, in offsets of
   * their partition below its first record read, which the sources of the partition share. Where they are more
   * than those offsets, they were never in the topic there (the stream was shipped on to another topic, or the
   * topic rewritten without them): each source of the partition with such records is not verified. A partition's
   * offsets before the read are the offset of its first record read ({@link TopicReader#firstRead}). A source
   * whose lines read as new came in {@code records} records ({@link SourceFindings#sendsLinesTogether}) needs one
   * offset for up to {@link ShipHeaders#MAX_RECORD_LINES} of its unread records; any other source, one for each.
   */
  private void unreadBeyondPartitions(TopicReader reader) {
    Map<Integer, Long> unread = new HashMap<>(); // the offsets the unread records took, at the least
    for (SourceCheck check : sources.values()) {
      if (check.partition >= 0) { // a changed source's count too: it comes from seals whose signatures verified
        long n = check.found.unreadRecords;
        long lines = ShipHeaders.MAX_RECORD_LINES;
        unread.merge(check.partition, check.found.sendsLinesTogether ? (n + lines - 1) / lines : n, Long::sum);
      }
    }
    for (SourceCheck check : sources.values()) {
      SourceFindings c = check.found;
      if (c.tampering != null || c.unreadAt == null) {
        continue;
      }
      long total = unread.getOrDefault(check.partition, 0L);
      long before = reader.firstRead.getOrDefault(check.partition, Long.MAX_VALUE);
      if (total > before) {
        Finding at = c.unreadAt;
        c.report(new Finding(Finding.Kind.NOT_VERIFIED, c.source, at.file, at.offset, at.place, c.unreadRecords
            + " record(s) sealed by the first seals read are not in the read, and the sources of partition "
            + check.partition + " have " + total + " such, more than the " + before + " offset(s) before its first "
            + "record read can hold: they were not in this topic before the read (shipped to another topic, or the "
            + "topic rewritten without them)"));
      }
    }
  }

  /** Prints what was found; returns the exit code. */
  int report(PrintStream out, String topic, TopicReader reader) {
    List<SourceCheck> asked = new ArrayList<>();
    for (SourceCheck check : sources.values()) {
      if (only.isEmpty() || only.contains(check.found.source)) {
        asked.add(check);
      }
    }
    Map<String, List<String>> trailSources = new HashMap<>();
    for (SourceCheck check : sources.values()) {
      check.finish();
      SourceFindings c = check.found;
      for (String t : c.trails) {
        trailSources.computeIfAbsent(t, k -> new ArrayList<>()).add(c.source);
      }
    }
    for (SourceCheck check : sources.values()) {
      SourceFindings c = check.found;
      for (String t : c.trails) {
        List<String> others = new ArrayList<>(trailSources.get(t));
        others.remove(c.source);
        if (c.tampering == null && !others.isEmpty()) {
          c.tampering = new Finding(Finding.Kind.TAMPERED, c.source, -1, -1, null, "its seals are of trail " + t
              + ", whose seals " + String.join(", ", others) + " has too: one source's records and seals "
              + "replayed under another's key");
        }
      }
    }
    unreadBeyondPartitions(reader);
    int tampered = 0;
    int notVerified = 0;
    int verified = 0;
    for (SourceCheck check : asked) {
      SourceFindings c = check.found;
      for (String line : SourceSummary.lines(c, reader.fromMillis)) {
        out.println(line);
      }
      int code = c.exitCode();
      tampered += code == 1 ? 1 : 0;
      notVerified += code == 2 ? 1 : 0;
      verified += code == 0 ? 1 : 0;
    }
    Set<String> named = new TreeSet<>(sourceKeys.keySet()); // a source bound to a key, or asked for by name
    named.addAll(only);
    for (SourceCheck check : asked) {
      named.remove(check.found.source);
    }
    if (!only.isEmpty()) {
      named.retainAll(only);
    }
    for (String missing : named) {
      out.println("NOT VERIFIED: " + missing + ": no record of the source in the topic");
      notVerified++;
    }
    long deleted = 0;
    for (Map.Entry<Integer, Long> e : reader.logStart.entrySet()) {
      deleted += e.getValue();
    }
    out.println("sources: " + verified + " verified, " + notVerified + " with records not verified, " + tampered
        + " tampered (topic " + topic + ": " + reader.recordsRead + " records read from "
        + reader.endOffsets.size() + " partition(s)" + (deleted > 0 ? "; " + deleted + " records before them "
        + "deleted from the topic" : "") + ")");
    if (asked.isEmpty()) {
      if (named.isEmpty()) {
        out.println("NOT VERIFIED: no record in the topic");
      }
      return 2;
    }
    return tampered > 0 ? 1 : notVerified > 0 ? 2 : 0;
  }
}
