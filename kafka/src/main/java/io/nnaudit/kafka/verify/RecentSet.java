package io.nnaudit.kafka.verify;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The last {@code capacity} keys added (seal and gap identities, seal hashes): a bounded memory of what was seen,
 * the oldest forgotten first.
 */
final class RecentSet<K> {
  private final LinkedHashMap<K, Boolean> map;

  RecentSet(int capacity) {
    this.map = new LinkedHashMap<K, Boolean>(16, 0.75f, false) {
      private static final long serialVersionUID = 1L;

      @Override
      protected boolean removeEldestEntry(Map.Entry<K, Boolean> eldest) {
        return size() > capacity;
      }
    };
  }

  /** Adds {@code k}; false when it was there already. */
  boolean add(K k) {
    return map.put(k, Boolean.TRUE) == null;
  }

  boolean contains(K k) {
    return map.containsKey(k);
  }
}
