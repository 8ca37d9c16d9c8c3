package io.nnaudit.config;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

import org.apache.hadoop.conf.Configuration;

/**
 * The NameNode's {@link Configuration} as the settings read it. Every read of the settings ({@code io.nnaudit.settings}) and
 * {@link ConfigCheck} goes through here and leaves behind the value it returned (trimmed, with variables
 * expanded where the read expands them, or the default when the key is unset), so that two readings can be
 * compared by what they were read from ({@link #values}) instead of by a list of fields kept in step by hand:
 * a key read for a new setting takes part without anyone remembering to add it. Not thread-safe: one reader
 * per reading of the settings, on one thread.
 */
public final class RecordingConfigReader {
  private final Configuration conf;
  private final Map<String, String> read = new TreeMap<>();

  public RecordingConfigReader(Configuration conf) {
    this.conf = conf;
  }

  /** The trimmed value, or null when the key is unset. */
  public String getTrimmed(String key) {
    return record(key, conf.getTrimmed(key));
  }

  /** The trimmed value, or {@code dflt} when the key is unset. */
  public String getTrimmed(String key, String dflt) {
    return record(key, conf.getTrimmed(key, dflt));
  }

  /** The trimmed value with {@code ${...}} expanded, in the value or in {@code dflt} when the key is unset. */
  public String getExpanded(String key, String dflt) {
    String v = conf.get(key, dflt);
    return record(key, v == null ? null : v.trim());
  }

  /** The comma-separated values, each trimmed; empty when the key is unset. */
  public String[] getTrimmedStrings(String key) {
    String[] v = conf.getTrimmedStrings(key);
    record(key, String.join(",", v));
    return v;
  }

  /** A size with Hadoop's k, m, g, t, p suffixes; recorded as the number of bytes it means. */
  public long getLongBytes(String key, long dflt) {
    long v = conf.getLongBytes(key, dflt);
    record(key, Long.toString(v));
    return v;
  }

  /**
   * A copy of the Configuration, for a sink's own keys. What a sink reads there counts in {@link #values}
   * through the {@code nnaudit.*} entries.
   */
  public Configuration copy() {
    return new Configuration(conf);
  }

  /**
   * The value of every key read so far, and of every {@code nnaudit.*} entry of the Configuration whether read
   * or not (a custom sink's own keys), as they were written for the keys not read.
   */
  public Map<String, String> values() {
    Map<String, String> all = new TreeMap<>();
    for (Map.Entry<String, String> e : conf) {
      if (e.getKey().startsWith(NnauditConfigKeys.PREFIX)) {
        all.put(e.getKey(), e.getValue());
      }
    }
    all.putAll(read);
    return Collections.unmodifiableMap(all);
  }

  private String record(String key, String value) {
    read.put(key, value);
    return value;
  }
}
