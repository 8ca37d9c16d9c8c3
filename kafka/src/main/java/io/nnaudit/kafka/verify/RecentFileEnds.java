package io.nnaudit.kafka.verify;

import java.util.LinkedHashMap;
import java.util.Map;

/** The lengths of the last files of a source that ended (by their file-end), bounded: what a copy is compared to. */
final class RecentFileEnds {
  private final LinkedHashMap<Long, Long> ends;

  RecentFileEnds(int capacity) {
    this.ends = new LinkedHashMap<Long, Long>(16, 0.75f, false) {
      private static final long serialVersionUID = 1L;

      @Override
      protected boolean removeEldestEntry(Map.Entry<Long, Long> eldest) {
        return size() > capacity;
      }
    };
  }

  void put(long file, long length) {
    ends.put(file, length);
  }

  Long get(long file) {
    return ends.get(file);
  }
}
