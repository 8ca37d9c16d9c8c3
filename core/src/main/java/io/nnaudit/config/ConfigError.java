package io.nnaudit.config;

/**
 * The one message of a configuration value nnaudit refuses: it names the key, repeats the bad value and says
 * what is allowed, because that message is all a NameNode operator sees when start-up fails.
 *
 * <p>This package depends on nothing of nnaudit, so that the settings (the root package), the formats and the
 * sinks can all build the same message without depending on each other; a custom sink may use it too.
 */
public final class ConfigError {
  private ConfigError() {
  }

  /** {@code nnaudit: invalid value for KEY: 'VALUE'. Allowed: ALLOWED.} */
  public static IllegalArgumentException invalid(String key, Object value, String allowed) {
    return new IllegalArgumentException(
        "nnaudit: invalid value for " + key + ": '" + value + "'. Allowed: " + allowed + ".");
  }

  /** As {@link #invalid(String, Object, String)}, with the failure that showed the value to be bad. */
  public static IllegalArgumentException invalid(String key, Object value, String allowed, Throwable cause) {
    IllegalArgumentException e = invalid(key, value, allowed);
    e.initCause(cause);
    return e;
  }
}
