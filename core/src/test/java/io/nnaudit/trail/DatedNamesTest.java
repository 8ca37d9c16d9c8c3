package io.nnaudit.trail;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.time.ZoneId;

import org.junit.jupiter.api.Test;

class DatedNamesTest {
  private static final ZoneId UTC = ZoneId.of("UTC");
  private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

  private static long at(String iso) {
    return Instant.parse(iso).toEpochMilli();
  }

  @Test
  void dailyNamesCarryTheDayOfTheLastRecordAndASequence() {
    DatedNames n = new DatedNames(DatedNames.DAILY_PATTERN, false, UTC);
    assertEquals("hdfs-audit.log.2026-11-25.1", n.name("hdfs-audit.log", at("2026-11-25T23:59:59.999Z"), 1));
    assertEquals("hdfs-audit.log.2026-11-26.3", n.name("hdfs-audit.log", at("2026-11-26T00:00:00Z"), 3));
    DatedNames.Place p = n.place("hdfs-audit.log", "hdfs-audit.log.2026-11-25.12");
    assertEquals(at("2026-11-25T00:00:00Z"), p.periodStart);
    assertEquals(12, p.seq);
    assertTrue(p.compareTo(n.place("hdfs-audit.log", "hdfs-audit.log.2026-11-26.1")) < 0);
    assertTrue(p.compareTo(n.place("hdfs-audit.log", "hdfs-audit.log.2026-11-25.2")) > 0, "12 after 2");
  }

  @Test
  void namesThePatternDoesNotWriteAreNotPlaced() {
    DatedNames n = new DatedNames(DatedNames.DAILY_PATTERN, false, UTC);
    assertNull(n.place("hdfs-audit.log", "hdfs-audit.log"));
    assertNull(n.place("hdfs-audit.log", "hdfs-audit.log.1"));
    assertNull(n.place("hdfs-audit.log", "hdfs-audit.log.2026-11-31.1"), "no such day");
    assertNull(n.place("hdfs-audit.log", "hdfs-audit.log.2026-1-5.1"), "not as the pattern writes it");
    assertNull(n.place("hdfs-audit.log", "hdfs-audit.log.2026-11-25.01"), "not as the sequence is written");
    assertNull(n.place("hdfs-audit.log", "hdfs-audit.log.2026-11-25.0"));
    assertNull(n.place("hdfs-audit.log", "other.log.2026-11-25.1"));
    assertNull(n.place("hdfs-audit.log", "hdfs-audit.log.2026-11-25.1.seals"));
  }

  @Test
  void withoutASequenceTheFirstFileOfADayHasTheDailyRollingFileAppendersName() {
    DatedNames n = new DatedNames(".%d{yyyy-MM-dd}", false, UTC);
    assertEquals("hdfs-audit.log.2026-11-24", n.name("hdfs-audit.log", at("2026-11-24T10:00:00Z"), 1));
    assertEquals("hdfs-audit.log.2026-11-24.2", n.name("hdfs-audit.log", at("2026-11-24T11:00:00Z"), 2));
    assertEquals(1, n.place("hdfs-audit.log", "hdfs-audit.log.2026-11-24").seq);
    assertEquals(2, n.place("hdfs-audit.log", "hdfs-audit.log.2026-11-24.2").seq);
    assertNull(n.place("hdfs-audit.log", "hdfs-audit.log.2026-11-24.1"), "the first has no .1");
  }

  @Test
  void log4j2StylePatternsWithTheSequenceAnywhere() {
    DatedNames dash = new DatedNames("-%d{yyyyMMdd-HH}-%i", true, UTC);
    assertEquals("audit.log-20261125-07-4", dash.name("audit.log", at("2026-11-25T07:59:00Z"), 4));
    assertEquals(at("2026-11-25T07:00:00Z"), dash.place("audit.log", "audit.log-20261125-07-4").periodStart);
    DatedNames first = new DatedNames(".%i.%d{yyyy-MM-dd}", false, UTC);
    assertEquals("audit.log.2.2026-11-25", first.name("audit.log", at("2026-11-25T07:59:00Z"), 2));
    assertEquals(2, first.place("audit.log", "audit.log.2.2026-11-25").seq);
  }

  @Test
  void aDateHoldingTheSeparatorIsCutWhereItReadsBack() {
    DatedNames dots = new DatedNames(".%d{yyyy.MM.dd}", false, UTC);
    assertEquals(1, dots.place("a", "a.2026.11.25").seq);
    assertEquals(at("2026-11-25T00:00:00Z"), dots.place("a", "a.2026.11.25").periodStart);
    assertEquals(2, dots.place("a", "a.2026.11.25.2").seq);
    DatedNames dotted = new DatedNames(".%d{yyyy.MM.dd}.%i", false, UTC);
    assertEquals(12, dotted.place("a", "a.2026.11.25.12").seq);
    assertEquals(at("2026-11-25T00:00:00Z"), dotted.place("a", "a.2026.11.25.12").periodStart);
    assertEquals("a.log", dotted.liveNameOf("a.log.2026.11.25.3"));
  }

  @Test
  void daysAreTheZonesDays() {
    DatedNames n = new DatedNames(DatedNames.DAILY_PATTERN, false, BERLIN);
    assertEquals("a.2026-11-26.1", n.name("a", at("2026-11-25T23:30:00Z"), 1), "00:30 in Berlin");
    assertEquals(at("2026-11-25T23:00:00Z"), n.place("a", "a.2026-11-26.1").periodStart);
  }

  @Test
  void theHourADaylightSavingChangeRepeatsSharesItsLabelAndIsOrderedBySequence() {
    DatedNames n = new DatedNames(DatedNames.HOURLY_PATTERN, true, BERLIN);
    String cest = n.name("a", at("2026-10-25T00:30:00Z"), 1); // 02:30 CEST
    String cet = n.name("a", at("2026-10-25T01:30:00Z"), 2); // 02:30 CET, the same label, next sequence
    assertEquals("a.2026-10-25-02.1", cest);
    assertEquals("a.2026-10-25-02.2", cet);
    assertTrue(n.place("a", cest).compareTo(n.place("a", cet)) < 0);
    assertTrue(n.place("a", cet).compareTo(n.place("a", "a.2026-10-25-03.1")) < 0);
  }

  @Test
  void patternsThatCannotNameEveryPeriodApartAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> new DatedNames(".%i", false, UTC), "no date");
    assertThrows(IllegalArgumentException.class, () -> new DatedNames(".%d{yyyy-MM}.%i", false, UTC), "months");
    assertThrows(IllegalArgumentException.class, () -> new DatedNames(".%d{yyyy-MM-dd}.%i", true, UTC), "hours");
    assertThrows(IllegalArgumentException.class, () -> new DatedNames(".%d{MM-dd}.%i", false, UTC), "no year");
    assertThrows(IllegalArgumentException.class, () -> new DatedNames(".%d{yyyy/MM/dd}.%i", false, UTC), "'/'");
    assertThrows(IllegalArgumentException.class, () -> new DatedNames("/x.%d{yyyy-MM-dd}.%i", false, UTC));
    assertThrows(IllegalArgumentException.class, () -> new DatedNames(".%d{yyyy-MM-dd}%i", false, UTC),
        "nothing between date and sequence");
    assertThrows(IllegalArgumentException.class, () -> new DatedNames(".%d{yyyy-MM-dd}.%d{HH}.%i", true, UTC));
    assertThrows(IllegalArgumentException.class, () -> new DatedNames(".%d{qqq}.%i", false, UTC));
  }
}
