package io.nnaudit.sink.file;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;

import io.nnaudit.sink.RotationSettings;

/**
 * Where the periods of time rotation end: hourly boundaries are every hour of elapsed time, at the zone's whole
 * hours (so an hourly file is an hour long across a daylight-saving change, whose hour is only labelled twice or
 * not at all); daily boundaries are the zone's midnights, so a day is 23 or 25 hours long when the clocks change
 * (a midnight the change skips is the first instant of that day). Stateless.
 */
final class PeriodBoundaries {
  /** No boundary: rotation by size alone. */
  static final long NEVER = Long.MAX_VALUE;

  private PeriodBoundaries() {
  }

  /** The end of the period that holds {@code millis} (the next boundary after it); {@link #NEVER} for none. */
  static long endOfPeriodAt(RotationSettings.Period period, ZoneId zone, long millis) {
    if (period == RotationSettings.Period.NONE) {
      return NEVER;
    }
    ZonedDateTime t = Instant.ofEpochMilli(millis).atZone(zone);
    ZonedDateTime end = period == RotationSettings.Period.HOURLY
        ? t.truncatedTo(ChronoUnit.HOURS).plusHours(1)
        : t.toLocalDate().plusDays(1).atStartOfDay(zone);
    return end.toInstant().toEpochMilli();
  }
}
