package io.nnaudit.kafka;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Finding places in a copy of a shipped topic ({@link TopicCopy}) and changing it as a writer to the topic could,
 * for the tests that hold verify-stream to what it says. Stateless.
 */
final class StreamEdits {
  private StreamEdits() {
  }

  /** The index of the {@code n}th record (from 1) of {@code source} of {@code type}. */
  static int nth(List<CopiedRecord> all, String source, String type, int n) {
    int seen = 0;
    for (int i = 0; i < all.size(); i++) {
      if (all.get(i).is(source, type) && ++seen == n) {
        return i;
      }
    }
    throw new AssertionError("no " + n + "th " + type + " of " + source);
  }

  /** The index of the last item of {@code source} (a record, a seal, a file-end), or -1. */
  static int lastOf(List<CopiedRecord> all, String source) {
    for (int i = all.size() - 1; i >= 0; i--) {
      if (source.equals(all.get(i).source())) {
        return i;
      }
    }
    return -1;
  }

  /** The last audit record of {@code source}. */
  static CopiedRecord lastRecord(List<CopiedRecord> all, String source) {
    for (int i = all.size() - 1; i >= 0; i--) {
      if (all.get(i).is(source, ShipHeaders.RECORD)) {
        return all.get(i);
      }
    }
    throw new AssertionError("no record of " + source);
  }

  /** A copy of {@code r} whose line says delete where it said mkdirs: the same length, another record. */
  static CopiedRecord forgedFrom(CopiedRecord r) {
    CopiedRecord f = new CopiedRecord(r);
    f.value = r.text().replace("mkdirs", "delete").getBytes(StandardCharsets.UTF_8);
    return f;
  }

  /**
   * {@code n} forged records after {@code source}'s last item, in the file of its last record, each where the one
   * before ends; returns {@code all}.
   */
  static List<CopiedRecord> appendForged(List<CopiedRecord> all, String source, int n) {
    CopiedRecord l = lastRecord(all, source);
    long off = l.offset() + l.value.length + 1;
    int at = lastOf(all, source) + 1;
    for (int i = 0; i < n; i++) {
      CopiedRecord f = forgedFrom(l);
      f.header(ShipHeaders.OFFSET, Long.toString(off));
      off += f.value.length + 1;
      all.add(at++, f);
    }
    return all;
  }
}
