package io.nnaudit.format;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;

/**
 * Formats epoch milliseconds as log4j's {@code %d{ISO8601}}: {@code yyyy-MM-dd HH:mm:ss,SSS} in the JVM's
 * default time zone. The date-and-seconds part is computed once per second and reused, so most records cost
 * three digits. Not thread-safe: one instance per writer thread.
 */
public final class Log4jTimestamp {
  private final ZoneId zone;
  private long cachedSecond = Long.MIN_VALUE;
  private final byte[] cached = new byte[20]; // "yyyy-MM-dd HH:mm:ss,"

  public Log4jTimestamp() {
    this(ZoneId.systemDefault());
  }

  public Log4jTimestamp(ZoneId zone) {
    this.zone = zone;
  }

  public void append(RecordBuffer out, long epochMillis) {
    long second = Math.floorDiv(epochMillis, 1000L);
    if (second != cachedSecond) {
      fill(second);
      cachedSecond = second;
    }
    int millis = (int) Math.floorMod(epochMillis, 1000L);
    out.append(cached);
    out.ensure(3);
    out.put((byte) ('0' + millis / 100));
    out.put((byte) ('0' + millis / 10 % 10));
    out.put((byte) ('0' + millis % 10));
  }

  private void fill(long second) {
    LocalDateTime t = LocalDateTime.ofInstant(Instant.ofEpochSecond(second), zone);
    put(0, t.getYear(), 4);
    cached[4] = (byte) '-';
    put(5, t.getMonthValue(), 2);
    cached[7] = (byte) '-';
    put(8, t.getDayOfMonth(), 2);
    cached[10] = (byte) ' ';
    put(11, t.getHour(), 2);
    cached[13] = (byte) ':';
    put(14, t.getMinute(), 2);
    cached[16] = (byte) ':';
    put(17, t.getSecond(), 2);
    cached[19] = (byte) ',';
  }

  private void put(int at, int value, int digits) {
    for (int i = digits - 1; i >= 0; i--) {
      cached[at + i] = (byte) ('0' + value % 10);
      value /= 10;
    }
  }
}
