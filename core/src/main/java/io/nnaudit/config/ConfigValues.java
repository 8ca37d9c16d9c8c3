package io.nnaudit.config;

import java.io.IOException;

import org.apache.hadoop.conf.Configuration;

/**
 * Parses and checks single configuration values, for every part of nnaudit that reads keys (the settings, the
 * sealing keys, the Kafka shipper): one wording of "an integer from MIN to MAX", and of an unreadable password,
 * in every message. Stateless.
 */
public final class ConfigValues {
  private ConfigValues() {
  }

  /**
   * {@code raw} (trimmed; null or empty means {@code dflt}) as a long from {@code min} to {@code max}; else an
   * {@link IllegalArgumentException} naming {@code key}, the value and the range, with {@code meaning} (the
   * unit, say) after it when not empty.
   */
  public static long longInRange(String key, String raw, long dflt, long min, long max, String meaning) {
    if (raw == null || raw.isEmpty()) {
      return dflt;
    }
    long v;
    try {
      v = Long.parseLong(raw);
    } catch (NumberFormatException e) {
      throw ConfigError.invalid(key, raw, rangeText(min, max, meaning), e);
    }
    if (v < min || v > max) {
      throw ConfigError.invalid(key, raw, rangeText(min, max, meaning));
    }
    return v;
  }

  /**
   * The password {@code key} names, read through Hadoop's CredentialProvider
   * ({@code hadoop.security.credential.provider.path}, the key as the alias), else from the configuration as
   * {@link Configuration#getPassword} falls back; null when neither has it. A provider that cannot be read is
   * an {@link IllegalArgumentException} naming the key, never the value.
   */
  public static char[] password(Configuration conf, String key) {
    try {
      return conf.getPassword(key);
    } catch (IOException e) {
      throw ConfigError.invalid(key, "(hidden)", "a password that hadoop.security.credential.provider.path can "
          + "read (" + e + ")", e);
    }
  }

  private static String rangeText(long min, long max, String meaning) {
    return "an integer from " + min + " to " + max + (meaning.isEmpty() ? "" : " (" + meaning + ")");
  }
}
