package io.nnaudit.sink;

import java.time.ZoneId;
import java.util.Objects;

import io.nnaudit.trail.DatedNames;

/**
 * When the file sink rotates its file, how it keeps the rotated files, and for how long: {@code nnaudit.file.*}.
 * Rotation happens when the file reaches {@link #maxSize}, or when a {@link #period} boundary has passed in
 * {@link #zone}, whichever comes first. Rotated files are compressed by {@link #compression}, and kept while
 * within every bound set: {@link #maxBackups} files, {@link #maxAgeMs} of age and {@link #maxTotalBytes} of
 * disk. Immutable.
 */
public final class RotationSettings {
  /** The time boundaries at which the file is rotated. */
  public enum Period {
    NONE, HOURLY, DAILY
  }

  /** How rotated files are compressed. */
  public enum Compression {
    NONE, GZIP
  }

  private final long maxSize;
  private final int maxBackups;
  private final Period period;
  private final ZoneId zone;
  private final Compression compression;
  private final long maxAgeMs;
  private final long maxTotalBytes;
  /** The names of rotated files; null: numbered. */
  private final DatedNames dated;

  private RotationSettings(long maxSize, int maxBackups, Period period, ZoneId zone, Compression compression,
      long maxAgeMs, long maxTotalBytes, DatedNames dated) {
    this.maxSize = maxSize;
    this.maxBackups = maxBackups;
    this.period = Objects.requireNonNull(period, "period");
    this.zone = Objects.requireNonNull(zone, "zone");
    this.compression = Objects.requireNonNull(compression, "compression");
    this.maxAgeMs = maxAgeMs;
    this.maxTotalBytes = maxTotalBytes;
    this.dated = dated;
  }

  /** Rotation by size alone, files kept by count: the stock RFAAUDIT's scheme. */
  public static RotationSettings bySize(long maxSize, int maxBackups) {
    return new RotationSettings(maxSize, maxBackups, Period.NONE, ZoneId.of("UTC"), Compression.NONE, 0, 0, null);
  }

  /** The same, also rotated at each {@code p} boundary in {@code z}. */
  public RotationSettings every(Period p, ZoneId z) {
    return new RotationSettings(maxSize, maxBackups, p, z, compression, maxAgeMs, maxTotalBytes, dated);
  }

  /** The same, rotated files compressed by {@code c}. */
  public RotationSettings compressed(Compression c) {
    return new RotationSettings(maxSize, maxBackups, period, zone, c, maxAgeMs, maxTotalBytes, dated);
  }

  /** The same, rotated files kept at most {@code ageMs} (0: no bound) and {@code totalBytes} (0: no bound). */
  public RotationSettings keptFor(long ageMs, long totalBytes) {
    return new RotationSettings(maxSize, maxBackups, period, zone, compression, ageMs, totalBytes, dated);
  }

  /**
   * The same, rotated files named by {@code pattern} (see {@link DatedNames}) in the period and zone set before;
   * an {@link IllegalArgumentException} says what is wrong with a pattern.
   */
  public RotationSettings named(String pattern) {
    return new RotationSettings(maxSize, maxBackups, period, zone, compression, maxAgeMs, maxTotalBytes,
        new DatedNames(pattern, period == Period.HOURLY, zone));
  }

  /** What {@code dated} names: the day, or the hour under hourly rotation, then a sequence. */
  public static String datedPattern(Period p) {
    return p == Period.HOURLY ? DatedNames.HOURLY_PATTERN : DatedNames.DAILY_PATTERN;
  }

  /** {@code nnaudit.file.rotated.names}: the pattern of dated names, or null for numbered names. */
  public DatedNames datedNames() {
    return dated;
  }

  /** {@code nnaudit.file.max.size}: the size in bytes at which the file rotates. */
  public long maxSize() {
    return maxSize;
  }

  /** {@code nnaudit.file.max.backups}: rotated files kept, at least 1. */
  public int maxBackups() {
    return maxBackups;
  }

  /** {@code nnaudit.file.rotate.period}: hourly, daily, or none (by size alone). */
  public Period period() {
    return period;
  }

  /** {@code nnaudit.file.rotate.zone}: the zone whose hours and days the period follows. */
  public ZoneId zone() {
    return zone;
  }

  /** {@code nnaudit.file.compress}: how rotated files are compressed. */
  public Compression compression() {
    return compression;
  }

  /** {@code nnaudit.file.max.age}: the age in ms past which a rotated file is deleted; 0 for no bound. */
  public long maxAgeMs() {
    return maxAgeMs;
  }

  /** {@code nnaudit.file.max.total.size}: the bytes the rotated files may take together; 0 for no bound. */
  public long maxTotalBytes() {
    return maxTotalBytes;
  }

  @Override
  public String toString() {
    return "maxSize=" + maxSize + ", maxBackups=" + maxBackups + ", period=" + period + ", zone=" + zone
        + ", compression=" + compression + ", maxAgeMs=" + maxAgeMs + ", maxTotalBytes=" + maxTotalBytes
        + ", names=" + (dated == null ? "numbered" : dated.pattern());
  }
}
