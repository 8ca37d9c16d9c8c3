package io.nnaudit.config;

import static io.nnaudit.config.ConfigError.invalid;

/**
 * Reads single configuration values, through the {@link RecordingConfigReader}, and validates them; an unset key
 * reads as its default. Every failure is an {@link IllegalArgumentException} whose message
 * ({@link io.nnaudit.config.ConfigError}) names the key, the bad value and what is allowed, because that
 * message is all a NameNode operator sees when start-up fails.
 */
public final class ConfigCheck {
  private ConfigCheck() {
  }

  public static int intInRange(RecordingConfigReader conf, String key, int dflt, int min, int max, String meaning) {
    return (int) longInRange(conf, key, dflt, min, max, meaning);
  }

  public static long longInRange(RecordingConfigReader conf, String key, long dflt, long min, long max,
      String meaning) {
    return ConfigValues.longInRange(key, conf.getTrimmed(key, Long.toString(dflt)), dflt, min, max, meaning);
  }

  /** A size such as {@code 1048576}, {@code 256m} or {@code 1g} (Hadoop's {@code getLongBytes} suffixes). */
  public static long bytesInRange(RecordingConfigReader conf, String key, long dflt, long min, long max) {
    String raw = conf.getTrimmed(key, Long.toString(dflt));
    if (raw.isEmpty()) {
      return dflt;
    }
    String allowed = "a size in bytes from " + min + " to " + max
        + ", optionally with a k, m, g or t suffix (e.g. 256m)";
    long v;
    try {
      v = conf.getLongBytes(key, dflt);
    } catch (RuntimeException e) {
      throw invalid(key, raw, allowed, e);
    }
    if (v < min || v > max) {
      throw invalid(key, raw, allowed);
    }
    return v;
  }

  /** An enum constant, case-insensitive; {@code fail-open} matches {@code FAIL_OPEN}. */
  public static <E extends Enum<E>> E enumValue(RecordingConfigReader conf, String key, String dflt, Class<E> type) {
    String raw = conf.getTrimmed(key, dflt);
    for (E e : type.getEnumConstants()) {
      if (e.name().equalsIgnoreCase(raw.replace('-', '_'))) {
        return e;
      }
    }
    StringBuilder allowed = new StringBuilder("one of ");
    E[] all = type.getEnumConstants();
    for (int i = 0; i < all.length; i++) {
      allowed.append(i == 0 ? "" : ", ").append(displayName(all[i], dflt));
    }
    throw invalid(key, raw, allowed.toString());
  }

  /** How a constant is written in configuration: in the case of the default, with hyphens for underscores. */
  static String displayName(Enum<?> e, String dflt) {
    boolean lower = !dflt.equals(dflt.toUpperCase(java.util.Locale.ROOT));
    String n = e.name();
    return lower ? ConfigSpelling.of(e) : n;
  }

  public static boolean bool(RecordingConfigReader conf, String key, boolean dflt) {
    String raw = conf.getTrimmed(key, Boolean.toString(dflt));
    if (raw.isEmpty()) {
      return dflt;
    }
    if ("true".equalsIgnoreCase(raw)) {
      return true;
    }
    if ("false".equalsIgnoreCase(raw)) {
      return false;
    }
    throw invalid(key, raw, "true or false");
  }
}
