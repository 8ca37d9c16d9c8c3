package io.nnaudit.sink;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A wall clock a test sets and moves, across midnights, hours and daylight-saving changes. Thread-safe. */
public final class MovableClock extends Clock {
  private volatile long millis;

  public MovableClock(Instant start) {
    this.millis = start.toEpochMilli();
  }

  public MovableClock(String isoInstant) {
    this(Instant.parse(isoInstant));
  }

  public void set(String isoInstant) {
    millis = Instant.parse(isoInstant).toEpochMilli();
  }

  public void advanceMillis(long ms) {
    millis += ms;
  }

  @Override
  public long millis() {
    return millis;
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis);
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    throw new UnsupportedOperationException("a movable clock has one zone, UTC; the sink applies its own zone");
  }
}
