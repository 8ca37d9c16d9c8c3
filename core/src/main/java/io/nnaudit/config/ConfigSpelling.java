package io.nnaudit.config;

import java.util.Locale;

/**
 * How an enum constant is spelled in configuration and in messages about it: lower case, with hyphens for
 * underscores ({@code FAIL_OPEN} is {@code fail-open}).
 */
public final class ConfigSpelling {
  private ConfigSpelling() {
  }

  public static String of(Enum<?> e) {
    return e.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
