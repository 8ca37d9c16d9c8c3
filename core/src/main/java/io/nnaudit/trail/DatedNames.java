package io.nnaudit.trail;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;
import java.time.temporal.ChronoUnit;
import java.time.temporal.TemporalAccessor;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The names of rotated files that carry their period and a sequence within it, in the style of log4j2's
 * {@code filePattern}: what follows the live file's name, with one {@code %d{...}} (a {@link DateTimeFormatter}
 * pattern: the period) and at most one {@code %i} (the sequence, from 1). {@code .%d{yyyy-MM-dd}.%i} names
 * {@code hdfs-audit.log.2026-11-25.1}. Without {@code %i}, the first file of a period has the bare name, as
 * log4j's DailyRollingFileAppender names it ({@code hdfs-audit.log.2026-11-25}), and any further file of the
 * same period (rotated by size) gets {@code .2}, {@code .3}, ... after it.
 *
 * <p>A file is named by the period of its last record (hour or day in the zone; the day when rotation is by size
 * alone): one that a daily rotation closes just after midnight carries the day before. Names order by period,
 * then sequence. Immutable.
 */
public final class DatedNames {
  /** The pattern of {@code dated}: days, or hours under hourly rotation. */
  public static final String DAILY_PATTERN = ".%d{yyyy-MM-dd}.%i";
  public static final String HOURLY_PATTERN = ".%d{yyyy-MM-dd-HH}.%i";
  private static final Pattern DATE_FIELD = Pattern.compile("%d\\{([^}]+)\\}");

  private final String pattern;
  private final boolean hourly;
  private final ZoneId zone;
  private final DateTimeFormatter format;
  private final DateTimeFormatter parser;
  /** The literal text before the date, between the date and the sequence, and after both. */
  private final String before;
  private final String between;
  private final String after;
  /** Whether the sequence comes before the date (a pattern such as {@code .%i.%d{...}}). */
  private final boolean sequenceFirst;
  private final boolean explicitSequence;

  /**
   * A pattern for files rotated hourly ({@code hourly}) or daily in {@code zone}; an
   * {@link IllegalArgumentException} says what is wrong with it (no date, a date that does not tell the periods
   * apart or does not read back, a '/' or other characters a file name cannot hold).
   */
  public DatedNames(String pattern, boolean hourly, ZoneId zone) {
    this.pattern = pattern;
    this.hourly = hourly;
    this.zone = zone;
    Matcher d = DATE_FIELD.matcher(pattern);
    if (!d.find()) {
      throw new IllegalArgumentException("no %d{...} date in it");
    }
    int dateStart = d.start();
    int dateEnd = d.end();
    String formatText = d.group(1);
    if (d.find()) {
      throw new IllegalArgumentException("more than one %d{...}");
    }
    int seq = pattern.indexOf("%i");
    this.explicitSequence = seq >= 0;
    if (explicitSequence && pattern.indexOf("%i", seq + 2) >= 0) {
      throw new IllegalArgumentException("more than one %i");
    }
    this.sequenceFirst = explicitSequence && seq < dateStart;
    if (!explicitSequence) {
      before = pattern.substring(0, dateStart);
      between = "";
      after = pattern.substring(dateEnd);
    } else if (sequenceFirst) {
      before = pattern.substring(0, seq);
      between = pattern.substring(seq + 2, dateStart);
      after = pattern.substring(dateEnd);
    } else {
      before = pattern.substring(0, dateStart);
      between = pattern.substring(dateEnd, seq);
      after = pattern.substring(seq + 2);
    }
    for (String literal : new String[] {before, between, after}) {
      if (literal.contains("/") || literal.contains("%") || literal.contains("\0")) {
        throw new IllegalArgumentException("'" + literal + "' holds a '/' or a '%' other than %d{...} and %i");
      }
    }
    if (explicitSequence && between.isEmpty()) {
      throw new IllegalArgumentException("nothing between the date and %i to tell them apart");
    }
    try {
      this.format = DateTimeFormatter.ofPattern(formatText, Locale.ROOT).withZone(zone);
      this.parser = new DateTimeFormatterBuilder().appendPattern(formatText)
          .parseDefaulting(ChronoField.HOUR_OF_DAY, 0).toFormatter(Locale.ROOT)
          // smart resolution: yyyy reads; a 31st of November does not read back
          .withChronology(java.time.chrono.IsoChronology.INSTANCE);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("%d{" + formatText + "} is not a date pattern: " + e.getMessage(), e);
    }
    checkReadsBack(formatText);
  }

  /**
   * Each period of a year, formatted, must read back as that period, and differ from the one before, but for the
   * hour a daylight-saving change repeats, whose two files share a label and are told apart by their sequence.
   */
  private void checkReadsBack(String formatText) {
    long start = Instant.parse("2026-01-01T00:00:00Z").toEpochMilli();
    long step = hourly ? 3_600_000L : 86_400_000L;
    String prevText = null;
    long prev = Long.MIN_VALUE;
    for (long t = start; t < start + 366L * 86_400_000L; t += step) {
      long p = periodStart(t);
      if (p == prev) {
        continue;
      }
      String text = format.format(Instant.ofEpochMilli(p));
      if (text.contains("/") || text.isEmpty()) {
        throw new IllegalArgumentException("%d{" + formatText + "} writes '" + text + "', not a file name");
      }
      Long back = parsePeriod(text);
      boolean repeatedHour = text.equals(prevText) && !zone.getRules().getOffset(Instant.ofEpochMilli(p))
          .equals(zone.getRules().getOffset(Instant.ofEpochMilli(prev)));
      if (back == null || !format.format(Instant.ofEpochMilli(back)).equals(text)
          || (text.equals(prevText) && !repeatedHour) || (back != p && !repeatedHour)) {
        throw new IllegalArgumentException("%d{" + formatText + "} does not tell " + (hourly ? "hours" : "days")
            + " apart: " + Instant.ofEpochMilli(p).atZone(zone) + " is written '" + text + "'");
      }
      for (int seq = 1; seq <= 2; seq++) {
        if (TrailNames.isReservedTail(name("", p, seq))) {
          throw new IllegalArgumentException("the name '" + name("", p, seq) + "' it gives file " + seq + " of "
              + Instant.ofEpochMilli(p).atZone(zone) + " ends like a name the trail gives other files (.seals, .gz, "
              + "a temporary or set-aside name, the shipper's checkpoint)");
        }
        Place placed = place("", name("", p, seq));
        if (placed == null || placed.seq != seq || !format.format(Instant.ofEpochMilli(placed.periodStart))
            .equals(text)) {
          throw new IllegalArgumentException("the name '" + name("", p, seq) + "' it gives file " + seq + " of "
              + Instant.ofEpochMilli(p).atZone(zone) + " does not read back as that file");
        }
      }
      prevText = text;
      prev = p;
    }
  }

  /** The pattern as configured. */
  public String pattern() {
    return pattern;
  }

  /** The start of the period (hour or day in the zone) that holds {@code millis}. */
  public long periodStart(long millis) {
    ZonedDateTime t = Instant.ofEpochMilli(millis).atZone(zone);
    ZonedDateTime s = hourly ? t.truncatedTo(ChronoUnit.HOURS) : t.toLocalDate().atStartOfDay(zone);
    return s.toInstant().toEpochMilli();
  }

  /** The name of the {@code seq}th file (from 1) of the period that holds {@code lastWriteMillis}. */
  public String name(String liveName, long lastWriteMillis, int seq) {
    String date = format.format(Instant.ofEpochMilli(periodStart(lastWriteMillis)));
    if (!explicitSequence) {
      return liveName + before + date + after + (seq == 1 ? "" : "." + seq);
    }
    return sequenceFirst ? liveName + before + seq + between + date + after
        : liveName + before + date + between + seq + after;
  }

  /** A rotated file's place: its period's start and its sequence. Immutable. */
  public static final class Place implements Comparable<Place> {
    public final long periodStart;
    public final int seq;

    Place(long periodStart, int seq) {
      this.periodStart = periodStart;
      this.seq = seq;
    }

    /** Oldest first. */
    @Override
    public int compareTo(Place o) {
      int c = Long.compare(periodStart, o.periodStart);
      return c != 0 ? c : Integer.compare(seq, o.seq);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Place && compareTo((Place) o) == 0;
    }

    @Override
    public int hashCode() {
      return Long.hashCode(periodStart) * 31 + seq;
    }
  }

  /** The place of the rotated file named {@code name} (uncompressed) of the live file {@code liveName}, or null. */
  public Place place(String liveName, String name) {
    if (!name.startsWith(liveName)) {
      return null;
    }
    String rest = name.substring(liveName.length());
    if (!rest.startsWith(before) || !rest.endsWith(after) || rest.length() < before.length() + after.length()) {
      return null;
    }
    String middle = rest.substring(before.length(), rest.length() - after.length());
    // Every way of cutting the middle into a date and a sequence is tried: a date may hold the text that
    // separates it from the sequence (a dot, say), so the first cut that looks right may not be the one.
    if (!explicitSequence) {
      Place whole = placeOf(middle, null);
      if (whole != null) {
        return whole;
      }
      for (int dot = middle.lastIndexOf('.'); dot > 0; dot = middle.lastIndexOf('.', dot - 1)) {
        Place p = placeOf(middle.substring(0, dot), middle.substring(dot + 1));
        if (p != null) {
          return p;
        }
      }
      return null;
    }
    for (int at = middle.indexOf(between); at >= 0; at = middle.indexOf(between, at + 1)) {
      String first = middle.substring(0, at);
      String second = middle.substring(at + between.length());
      Place p = sequenceFirst ? placeOf(second, first) : placeOf(first, second);
      if (p != null) {
        return p;
      }
    }
    return null;
  }

  /** The place of a date and a sequence as written (null: the first file of a period without %i), or null. */
  private Place placeOf(String date, String seqText) {
    if (date.isEmpty()) {
      return null;
    }
    int seq = 1;
    if (seqText != null) {
      if (seqText.isEmpty() || seqText.length() > 9 || !seqText.chars().allMatch(c -> c >= '0' && c <= '9')) {
        return null;
      }
      seq = Integer.parseInt(seqText);
      if (seq < 1 || (!explicitSequence && seq < 2) || !String.valueOf(seq).equals(seqText)) {
        return null;
      }
    } else if (explicitSequence) {
      return null;
    }
    Long p = parsePeriod(date);
    if (p == null || !format.format(Instant.ofEpochMilli(p)).equals(date)) {
      return null; // not a name this pattern writes
    }
    return new Place(p, seq);
  }

  /**
   * The live file's name of {@code name} when it is the name of a rotated file this pattern writes (plain; the
   * shortest live name that places it), else null.
   */
  public String liveNameOf(String name) {
    for (int end = 1; end < name.length(); end++) {
      String liveName = name.substring(0, end);
      if (place(liveName, name) != null) {
        return liveName;
      }
    }
    return null;
  }

  /** The start of the period {@code text} names, or null if it is not a date of this pattern. */
  private Long parsePeriod(String text) {
    try {
      TemporalAccessor t = parser.parse(text);
      LocalDateTime local = LocalDateTime.of(t.get(ChronoField.YEAR), t.get(ChronoField.MONTH_OF_YEAR),
          t.get(ChronoField.DAY_OF_MONTH), t.get(ChronoField.HOUR_OF_DAY), 0);
      return periodStart(local.atZone(zone).toInstant().toEpochMilli());
    } catch (java.time.DateTimeException e) { // DateTimeParseException too
      return null;
    }
  }
}
