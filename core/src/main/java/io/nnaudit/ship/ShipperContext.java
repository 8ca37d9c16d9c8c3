package io.nnaudit.ship;

import java.io.File;
import java.util.Objects;

import org.apache.hadoop.conf.Configuration;

import io.nnaudit.trail.DatedNames;

/**
 * What a {@link Shipper} is given: the NameNode's configuration (a copy, for its own keys), the audit file it
 * ships from and how that file rotates, the record format, and the guard that keeps unshipped files from
 * rotation. Immutable.
 */
public final class ShipperContext {
  private final Configuration conf;
  private final File file;
  private final int maxBackups;
  private final String recordFormat;
  private final SpoolGuard spoolGuard;
  /** The names of rotated files; null: numbered. */
  private final DatedNames datedNames;

  public ShipperContext(Configuration conf, File file, int maxBackups, String recordFormat, SpoolGuard spoolGuard) {
    this(conf, file, maxBackups, recordFormat, spoolGuard, null);
  }

  /** With rotated files named by {@code datedNames} ({@code nnaudit.file.rotated.names}; null: numbered). */
  public ShipperContext(Configuration conf, File file, int maxBackups, String recordFormat, SpoolGuard spoolGuard,
      DatedNames datedNames) {
    this.datedNames = datedNames;
    this.conf = Objects.requireNonNull(conf, "conf");
    this.file = Objects.requireNonNull(file, "file");
    this.maxBackups = maxBackups;
    this.recordFormat = Objects.requireNonNull(recordFormat, "recordFormat");
    this.spoolGuard = Objects.requireNonNull(spoolGuard, "spoolGuard");
  }

  /** The NameNode's configuration (a copy), which the shipper must not change. */
  public Configuration conf() {
    return conf;
  }

  /** {@code nnaudit.file.path}: the live audit file; its backups are {@code file.1}, {@code file.2}, ... */
  public File file() {
    return file;
  }

  /** The rotated files kept at most, shipped or not, beyond which the guard's bound applies. */
  public int maxBackups() {
    return Math.max(maxBackups, spoolGuard.maxHeldBackups());
  }

  /** {@code nnaudit.record.format}: {@code hdfs} or {@code json}. */
  public String recordFormat() {
    return recordFormat;
  }

  /** {@code nnaudit.file.rotated.names}: how rotated files are named; null for numbered ({@code file.1}, ...). */
  public DatedNames datedNames() {
    return datedNames;
  }

  public SpoolGuard spoolGuard() {
    return spoolGuard;
  }
}
