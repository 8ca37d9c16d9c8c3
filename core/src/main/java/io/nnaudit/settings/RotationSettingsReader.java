package io.nnaudit.settings;

import static io.nnaudit.config.NnauditConfigKeys.*;

import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.concurrent.TimeUnit;

import io.nnaudit.config.ConfigCheck;
import io.nnaudit.config.ConfigError;
import io.nnaudit.config.RecordingConfigReader;
import io.nnaudit.sink.RotationSettings;

/**
 * Reads and checks the keys of rotation by time, compression and retention by age and size
 * ({@code nnaudit.file.rotate.*}, {@code nnaudit.file.compress}, {@code nnaudit.file.max.age},
 * {@code nnaudit.file.max.total.size}). Stateless.
 */
final class RotationSettingsReader {
  /** The longest age bound accepted: a hundred years. */
  private static final long MAX_AGE_MS = TimeUnit.DAYS.toMillis(36_500);

  private RotationSettingsReader() {
  }

  static RotationSettings read(RecordingConfigReader conf, long maxSize, int maxBackups) {
    RotationSettings.Period period = ConfigCheck.enumValue(conf, FILE_ROTATE_PERIOD_KEY, FILE_ROTATE_PERIOD_DEFAULT,
        RotationSettings.Period.class);
    RotationSettings.Compression compression = ConfigCheck.enumValue(conf, FILE_COMPRESS_KEY, FILE_COMPRESS_DEFAULT,
        RotationSettings.Compression.class);
    long maxTotal = ConfigCheck.bytesInRange(conf, FILE_MAX_TOTAL_SIZE_KEY, FILE_MAX_TOTAL_SIZE_DEFAULT, 0,
        Long.MAX_VALUE / 2);
    RotationSettings r = RotationSettings.bySize(maxSize, maxBackups).every(period, zone(conf))
        .compressed(compression).keptFor(maxAge(conf), maxTotal);
    return named(conf, r);
  }

  /** {@code numbered}, {@code dated} (days, or hours under hourly rotation), or a pattern. */
  private static RotationSettings named(RecordingConfigReader conf, RotationSettings r) {
    String raw = conf.getTrimmed(FILE_ROTATED_NAMES_KEY, FILE_ROTATED_NAMES_DEFAULT);
    if (raw.isEmpty() || raw.equalsIgnoreCase("numbered")) {
      return r;
    }
    String pattern = raw.equalsIgnoreCase("dated")
        ? RotationSettings.datedPattern(r.period()) : raw;
    String allowed = "numbered, dated, or a pattern of what follows the live file's name with one %d{...} that "
        + "tells " + (r.period() == RotationSettings.Period.HOURLY ? "hours" : "days") + " apart and at most one "
        + "%i, such as " + RotationSettings.datedPattern(r.period());
    if (pattern.endsWith(".gz")) {
      throw ConfigError.invalid(FILE_ROTATED_NAMES_KEY, raw, allowed + ", without .gz (set "
          + FILE_COMPRESS_KEY + "=gzip to compress)");
    }
    try {
      return r.named(pattern);
    } catch (IllegalArgumentException e) {
      throw ConfigError.invalid(FILE_ROTATED_NAMES_KEY, raw, allowed + " (" + e.getMessage() + ")", e);
    }
  }

  private static ZoneId zone(RecordingConfigReader conf) {
    String raw = conf.getTrimmed(FILE_ROTATE_ZONE_KEY, FILE_ROTATE_ZONE_DEFAULT);
    try {
      return ZoneId.of(raw.isEmpty() ? FILE_ROTATE_ZONE_DEFAULT : raw);
    } catch (DateTimeException e) {
      throw ConfigError.invalid(FILE_ROTATE_ZONE_KEY, raw, "a time zone id such as UTC, Europe/Berlin or +02:00",
          e);
    }
  }

  /** {@code 30d}, {@code 12h}, {@code 90m}, {@code 45s} or milliseconds without a suffix; 0 for no bound. */
  static long maxAge(RecordingConfigReader conf) {
    String raw = conf.getTrimmed(FILE_MAX_AGE_KEY, FILE_MAX_AGE_DEFAULT);
    String allowed = "0 (no bound) or an age up to 36500d: a number with a d, h, m or s suffix (e.g. 30d), or "
        + "milliseconds without one";
    if (raw.isEmpty()) {
      return 0;
    }
    String digits = raw;
    TimeUnit unit = TimeUnit.MILLISECONDS;
    char last = Character.toLowerCase(raw.charAt(raw.length() - 1));
    if (raw.toLowerCase(java.util.Locale.ROOT).endsWith("ms")) {
      digits = raw.substring(0, raw.length() - 2);
    } else if (last == 'd' || last == 'h' || last == 'm' || last == 's') {
      digits = raw.substring(0, raw.length() - 1);
      unit = last == 'd' ? TimeUnit.DAYS : last == 'h' ? TimeUnit.HOURS : last == 'm' ? TimeUnit.MINUTES
          : TimeUnit.SECONDS;
    }
    long n;
    try {
      n = Long.parseLong(digits.trim());
    } catch (NumberFormatException e) {
      throw ConfigError.invalid(FILE_MAX_AGE_KEY, raw, allowed, e);
    }
    if (n < 0 || n > MAX_AGE_MS || unit.toMillis(n) > MAX_AGE_MS) {
      throw ConfigError.invalid(FILE_MAX_AGE_KEY, raw, allowed);
    }
    return unit.toMillis(n);
  }
}
