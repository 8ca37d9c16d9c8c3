package io.nnaudit.format;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;

/**
 * ISO-8601 with milliseconds and the zone offset, e.g. {@code 2026-11-22T09:37:32.947Z}, in the JVM's default
 * time zone. The text up to the seconds is computed once per second and reused. Not thread-safe.
 */
public final class IsoTimestamp {
  private static final DateTimeFormatter SECONDS = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss");
  private static final DateTimeFormatter OFFSET = DateTimeFormatter.ofPattern("XXX");
  private final ZoneId zone;
  private long cachedSecond = Long.MIN_VALUE;
  private String cachedHead;
  private String cachedOffset;

  public IsoTimestamp() {
    this(ZoneId.systemDefault());
  }

  public IsoTimestamp(ZoneId zone) {
    this.zone = zone;
  }

  public String format(long epochMillis) {
    long second = Math.floorDiv(epochMillis, 1000L);
    if (second != cachedSecond) {
      ZonedDateTime t = ZonedDateTime.ofInstant(Instant.ofEpochSecond(second), zone);
      cachedHead = SECONDS.format(t) + ".";
      cachedOffset = OFFSET.format(t);
      cachedSecond = second;
    }
    int millis = (int) Math.floorMod(epochMillis, 1000L);
    StringBuilder sb = new StringBuilder(29).append(cachedHead);
    sb.append((char) ('0' + millis / 100)).append((char) ('0' + millis / 10 % 10)).append((char) ('0' + millis % 10));
    return sb.append(cachedOffset).toString();
  }
}
