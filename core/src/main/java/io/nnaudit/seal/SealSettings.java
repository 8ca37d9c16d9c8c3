package io.nnaudit.seal;

import static io.nnaudit.config.NnauditConfigKeys.SEAL_ENABLED_DEFAULT;
import static io.nnaudit.config.NnauditConfigKeys.SEAL_ENABLED_KEY;
import static io.nnaudit.config.NnauditConfigKeys.SEAL_INTERVAL_MS_DEFAULT;
import static io.nnaudit.config.NnauditConfigKeys.SEAL_INTERVAL_MS_KEY;
import static io.nnaudit.config.NnauditConfigKeys.SEAL_INTERVAL_RECORDS_DEFAULT;
import static io.nnaudit.config.NnauditConfigKeys.SEAL_INTERVAL_RECORDS_KEY;
import static io.nnaudit.config.NnauditConfigKeys.SEAL_KEYSTORE_PASSWORD_KEY;
import static io.nnaudit.config.NnauditConfigKeys.SEAL_KEYSTORE_PATH_DEFAULT;
import static io.nnaudit.config.NnauditConfigKeys.SEAL_KEYSTORE_PATH_KEY;
import static io.nnaudit.config.NnauditConfigKeys.SEAL_KEYSTORE_TYPE_DEFAULT;
import static io.nnaudit.config.NnauditConfigKeys.SEAL_KEYSTORE_TYPE_KEY;
import static io.nnaudit.config.NnauditConfigKeys.SEAL_KEY_ALIAS_DEFAULT;
import static io.nnaudit.config.NnauditConfigKeys.SEAL_KEY_ALIAS_KEY;
import static io.nnaudit.config.NnauditConfigKeys.SEAL_KEY_PASSWORD_KEY;

import org.apache.hadoop.conf.Configuration;

import io.nnaudit.config.ConfigError;
import io.nnaudit.config.ConfigValues;

/**
 * The sealing settings ({@code nnaudit.seal.*}), read and checked when nnaudit's settings are: the key is
 * loaded from its keystore then, and a test seal signed and checked with it, so that a missing key, a wrong
 * password or an unreadable keystore stops the NameNode at start-up with the key named. Immutable.
 */
public final class SealSettings {
  private final SealKey key;
  private final long intervalRecords;
  private final long intervalMs;

  public SealSettings(SealKey key, long intervalRecords, long intervalMs) {
    this.key = key;
    this.intervalRecords = intervalRecords;
    this.intervalMs = intervalMs;
  }

  /**
   * The sealing settings of {@code conf}, or null when {@code nnaudit.seal.enabled} is false. Throws
   * {@link IllegalArgumentException} naming the key, the value and what is allowed.
   */
  public static SealSettings fromConf(Configuration conf) {
    String enabled = trimmedOrDefault(conf, SEAL_ENABLED_KEY, String.valueOf(SEAL_ENABLED_DEFAULT));
    if (!"true".equalsIgnoreCase(enabled) && !"false".equalsIgnoreCase(enabled)) {
      throw ConfigError.invalid(SEAL_ENABLED_KEY, enabled, "true or false");
    }
    if (!Boolean.parseBoolean(enabled)) {
      return null;
    }
    long records = longInRange(conf, SEAL_INTERVAL_RECORDS_KEY, SEAL_INTERVAL_RECORDS_DEFAULT, 1, 1_000_000_000L,
        "records");
    long ms = longInRange(conf, SEAL_INTERVAL_MS_KEY, SEAL_INTERVAL_MS_DEFAULT, 1, 86_400_000L, "milliseconds");
    String path = trimmedOrDefault(conf, SEAL_KEYSTORE_PATH_KEY, SEAL_KEYSTORE_PATH_DEFAULT);
    if (path.isEmpty()) {
      throw ConfigError.invalid(SEAL_KEYSTORE_PATH_KEY, path, "the path of the keystore holding the sealing key, "
          + "when " + SEAL_ENABLED_KEY + " is true");
    }
    String type = trimmedOrDefault(conf, SEAL_KEYSTORE_TYPE_KEY, SEAL_KEYSTORE_TYPE_DEFAULT);
    String alias = trimmedOrDefault(conf, SEAL_KEY_ALIAS_KEY, SEAL_KEY_ALIAS_DEFAULT);
    char[] storePassword = ConfigValues.password(conf, SEAL_KEYSTORE_PASSWORD_KEY);
    if (storePassword == null) {
      throw ConfigError.invalid(SEAL_KEYSTORE_PASSWORD_KEY, "(unset)", "the password of " + path + ", from a "
          + "credential provider named by hadoop.security.credential.provider.path");
    }
    char[] keyPassword = ConfigValues.password(conf, SEAL_KEY_PASSWORD_KEY);
    SealKey key = KeystoreKeys.signingKey(path, type, storePassword, alias,
        keyPassword != null ? keyPassword : storePassword, keyPassword != null);
    return new SealSettings(key, records, ms);
  }

  /** The value of {@code key}, trimmed; an unset or empty key reads as its default, as every nnaudit key does. */
  private static String trimmedOrDefault(Configuration conf, String key, String dflt) {
    String raw = conf.getTrimmed(key);
    return raw == null || raw.isEmpty() ? dflt : raw;
  }

  private static long longInRange(Configuration conf, String key, long dflt, long min, long max, String unit) {
    return ConfigValues.longInRange(key, conf.getTrimmed(key), dflt, min, max, unit);
  }

  /** The key that signs seals. */
  public SealKey key() {
    return key;
  }

  /** A seal is due once this many records are unsealed. */
  public long intervalRecords() {
    return intervalRecords;
  }

  /** A seal is due once the oldest unsealed record is this old, in milliseconds. */
  public long intervalMs() {
    return intervalMs;
  }
}
