package io.nnaudit.format;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.ZoneId;
import java.util.Date;
import java.util.Random;
import java.util.TimeZone;

import org.apache.log4j.helpers.ISO8601DateFormat;
import org.junit.jupiter.api.Test;

class Log4jTimestampTest {

  private static String format(Log4jTimestamp ts, long millis) {
    RecordBuffer sb = new RecordBuffer();
    ts.append(sb, millis);
    return sb.toString();
  }

  @Test
  void knownInstantInUtc() {
    Log4jTimestamp ts = new Log4jTimestamp(ZoneId.of("UTC"));
    assertEquals("2026-11-22 09:37:32,947", format(ts, 1795340252947L));
    assertEquals("2026-11-22 09:37:32,007", format(ts, 1795340252007L));
    assertEquals("1970-01-01 00:00:00,000", format(ts, 0L));
  }

  /** Same text as reload4j's own %d{ISO8601}, in a zone with DST, across cached and uncached seconds. */
  @Test
  void matchesReload4jIso8601() {
    TimeZone zone = TimeZone.getTimeZone("Europe/Berlin");
    ISO8601DateFormat log4j = new ISO8601DateFormat(zone);
    Log4jTimestamp ts = new Log4jTimestamp(zone.toZoneId());
    Random r = new Random(7);
    long t = 1774746000000L - 5000; // just before the 2026 spring-forward in Berlin
    for (int i = 0; i < 50_000; i++) {
      t += r.nextInt(3) == 0 ? r.nextInt(400) : r.nextInt(86_400_000);
      assertEquals(log4j.format(new Date(t)), format(ts, t), "at " + t);
    }
  }
}
