package io.nnaudit.sink.file;

import java.time.Clock;
import java.time.ZoneId;

import io.nnaudit.sink.RotationSettings;

/**
 * When the live file's period of time rotation ends ({@code nnaudit.file.rotate.period}), by the wall clock: the
 * file is due for rotation from the first boundary after the period its records began in. An empty file is never
 * due: its period just moves on, so that a file holds the records of one period at most and no empty file is
 * rotated.
 *
 * <p>Design note. Owned by the sink's writing thread (one thread at a time, under the pipeline's write lock);
 * nothing blocks or drops. The clock is the system's, or one a test moves.
 */
final class TimeTrigger {
  private final RotationSettings.Period period;
  private final ZoneId zone;
  private final Clock wall;
  /** The boundary that ends the live file's period (ms since the epoch); NEVER without a period. */
  private long periodEnd = PeriodBoundaries.NEVER;

  TimeTrigger(RotationSettings settings, Clock wall) {
    this.period = settings.period();
    this.zone = settings.zone();
    this.wall = wall;
  }

  /** The live file's records began at {@code millis} (for a file found at start-up: when it was last written). */
  void fileBegan(long millis) {
    periodEnd = PeriodBoundaries.endOfPeriodAt(period, zone, millis);
  }

  /** Whether the live file, holding {@code size} bytes, is past its period's end and should be rotated now. */
  boolean due(long size) {
    if (periodEnd == PeriodBoundaries.NEVER) {
      return false;
    }
    long now = wall.millis();
    if (now < periodEnd) {
      return false;
    }
    if (size == 0) { // nothing of the past period to rotate: the file begins the present one
      fileBegan(now);
      return false;
    }
    return true;
  }

  /** The live file was rotated: the new one begins now. */
  void rotated() {
    if (periodEnd != PeriodBoundaries.NEVER) {
      fileBegan(wall.millis());
    }
  }
}
