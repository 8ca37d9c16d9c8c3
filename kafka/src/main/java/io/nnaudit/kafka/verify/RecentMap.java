package io.nnaudit.kafka.verify;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The last {@code capacity} keys put, each with its value (seal and gap identities, seal hashes, the lengths of the
 * files that ended): a bounded memory of what was seen, the oldest key forgotten first. Putting a key again
 * changes its value, not its age.
 */
final class RecentMap<K, V> {
  private final LinkedHashMap<K, V> map;

  RecentMap(int capacity) {
    this.map = new LinkedHashMap<K, V>(16, 0.75f, false) {
      private static final long serialVersionUID = 1L;

      @Override
      protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
        return size() > capacity;
      }
    };
  }

  /** Puts {@code k} with {@code v}; returns the value it had, or null when it was not there. */
  V put(K k, V v) {
    return map.put(k, v);
  }

  /** The value of {@code k}, or null when it is not there (never put, or forgotten). */
  V get(K k) {
    return map.get(k);
  }

  boolean containsKey(K k) {
    return map.containsKey(k);
  }
}
