package io.nnaudit.config;

import java.io.IOException;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.alias.CredentialProvider;
import org.apache.hadoop.security.alias.CredentialProviderFactory;

/**
 * The NameNode's {@link Configuration} as the settings read it. Every read of the settings
 * ({@code io.nnaudit.settings}) and {@link ConfigCheck} goes through here, and the parts that take a
 * Configuration of their own while the settings are read (the sealing settings, the shipper's check) are given
 * a {@link #recordingCopy}; each read leaves behind the value it returned (trimmed, with variables expanded
 * where the read expands them, or the default when the key is unset), so that two readings can be compared by
 * what they were read from ({@link #values}) instead of by a list of fields kept in step by hand: a key read for
 * a new setting, or a stock key a part reads (the shipper's {@code dfs.ha.namenode.id}), takes part without
 * anyone remembering to add it. What a credential provider or a keystore holds is not in the Configuration and
 * is not compared. Not thread-safe: one reader per reading of the settings, on one thread, and a recording copy
 * is read on that thread only, while the settings are read.
 */
public final class RecordingConfigReader {
  private final Configuration conf;
  private final Map<String, String> read = new TreeMap<>();
  /** What the recording copies returned: raw reads (no defaults), overridden by {@link #read} in {@link #values}. */
  private final Map<String, String> readByParts = new TreeMap<>();

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
   * A copy of the Configuration whose every read ({@link Configuration#get}, and so getTrimmed, getInt, ...;
   * a password by where it may come from) is recorded here as this reader's own reads are: for the parts that
   * read a Configuration themselves while the settings are read. Only reads on the thread that made it are
   * recorded, so read it there, before {@link #values}.
   */
  public Configuration recordingCopy() {
    return new RecordingCopy(conf, this);
  }

  /**
   * The value of every key read so far, here or from a recording copy, and of every {@code nnaudit.*} entry of
   * the Configuration whether read or not (a custom sink's own keys), as they were written for the keys not read.
   */
  public Map<String, String> values() {
    Map<String, String> all = new TreeMap<>();
    for (Map.Entry<String, String> e : conf) {
      if (e.getKey().startsWith(NnauditConfigKeys.PREFIX)) {
        all.put(e.getKey(), e.getValue());
      }
    }
    all.putAll(readByParts);
    all.putAll(read); // a key the settings read themselves counts as they read it
    return Collections.unmodifiableMap(all);
  }

  private String record(String key, String value) {
    read.put(key, value);
    return value;
  }

  /**
   * A Configuration that records, in its reader, the value of every key read from it by the thread reading the
   * settings. A password counts by where it may come from: the providers
   * {@code hadoop.security.credential.provider.path} names, whether the Configuration itself may hold it, and its
   * key; not by what opening a provider reads (the file system's own keys, read only while the file system cache
   * is cold, so that the same Configuration read twice would not record the same keys). The look-up itself runs
   * on a plain copy, so that this one never reaches a provider or the file system cache, which would keep it for
   * the life of the JVM and read it from other threads. Reads by any other thread (something that kept it) are
   * not recorded.
   */
  private static final class RecordingCopy extends Configuration {
    /** Null while Configuration's own constructor runs: nothing is read for the settings then. */
    private final RecordingConfigReader reader;
    /** The thread reading the settings: the only one whose reads are recorded. */
    private final Thread owner = Thread.currentThread();

    RecordingCopy(Configuration conf, RecordingConfigReader reader) {
      super(conf);
      this.reader = reader;
    }

    @Override
    public char[] getPassword(String name) throws IOException {
      get(CredentialProviderFactory.CREDENTIAL_PROVIDER_PATH);
      get(CredentialProvider.CLEAR_TEXT_FALLBACK);
      get(name);
      return new Configuration(this).getPassword(name);
    }

    @Override
    public String get(String name) {
      return record(name, super.get(name));
    }

    @Override
    public String get(String name, String defaultValue) {
      return record(name, super.get(name, defaultValue));
    }

    private String record(String name, String value) {
      if (reader != null && Thread.currentThread() == owner) {
        reader.readByParts.put(name, value);
      }
      return value;
    }
  }
}
