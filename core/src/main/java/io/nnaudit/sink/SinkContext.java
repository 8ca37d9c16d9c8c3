package io.nnaudit.sink;

import java.io.File;
import java.time.Clock;
import java.util.Objects;

import io.nnaudit.seal.SealSettings;
import io.nnaudit.ship.SpoolGuard;
import org.apache.hadoop.conf.Configuration;

/**
 * What a sink is given when it is opened: the NameNode's {@link Configuration}, from which a sink reads keys
 * of its own, and the validated settings the built-in sinks use. Immutable, except that the Configuration is
 * Hadoop's mutable class: it is a copy taken when the settings were read, which a sink must not change.
 *
 * <p>A sink's own keys should be named {@code nnaudit.*}: every such entry counts as a setting, so that a
 * re-initialize that changes one opens a new sink rather than keeping the running one.
 */
public final class SinkContext {
  private final Configuration conf;
  private final File file;
  private final RotationSettings rotation;
  private final Clock wallClock;
  private final String filePermissions;
  private final String durability;
  private final String log4j2Logger;
  private final SpoolGuard spoolGuard;
  private final SealSettings sealing;
  private final boolean failClosed;
  private final int journalBytes;

  private SinkContext(Builder b) {
    this.conf = Objects.requireNonNull(b.conf, "conf");
    this.file = Objects.requireNonNull(b.file, "file");
    this.rotation = Objects.requireNonNull(b.rotation, "rotation");
    this.wallClock = b.wallClock;
    this.filePermissions = Objects.requireNonNull(b.filePermissions, "filePermissions");
    this.durability = Objects.requireNonNull(b.durability, "durability");
    this.log4j2Logger = Objects.requireNonNull(b.log4j2Logger, "log4j2Logger");
    this.spoolGuard = b.spoolGuard;
    this.sealing = b.sealing;
    this.failClosed = b.failClosed;
    this.journalBytes = b.journalBytes;
  }

  /**
   * The same context with the hold of a shipper that forwards the file: rotation keeps what it has not shipped.
   */
  public SinkContext withSpoolGuard(SpoolGuard guard) {
    Builder b = toBuilder();
    b.spoolGuard = guard;
    return new SinkContext(b);
  }

  /** The same context with another wall clock: a test's, that it moves across boundaries. */
  public SinkContext withWallClock(Clock clock) {
    return toBuilder().wallClock(clock).build();
  }

  private Builder toBuilder() {
    Builder b = builder(conf).file(file).rotation(rotation).filePermissions(filePermissions)
        .durability(durability).log4j2Logger(log4j2Logger).sealing(sealing).failClosed(failClosed)
        .wallClock(wallClock).journal(journalBytes);
    b.spoolGuard = spoolGuard;
    return b;
  }

  /** The hold of the shipper that forwards the file, or null when nothing is shipped from it. */
  public SpoolGuard spoolGuard() {
    return spoolGuard;
  }

  /** A context built from validated values; nnaudit builds one from its settings. */
  public static Builder builder(Configuration conf) {
    return new Builder(conf);
  }

  /** The NameNode's configuration (a copy), for keys of the sink's own. */
  public Configuration conf() {
    return conf;
  }

  /** {@code nnaudit.file.path}: the audit file, absolute. */
  public File file() {
    return file;
  }

  /** {@code nnaudit.file.max.size}: the size in bytes at which the file sink rotates. */
  public long maxFileSize() {
    return rotation.maxSize();
  }

  /** {@code nnaudit.file.max.backups}: rotated files kept, at least 1. */
  public int maxBackups() {
    return rotation.maxBackups();
  }

  /** {@code nnaudit.file.*}: when the file sink rotates, and how it compresses and keeps rotated files. */
  public RotationSettings rotation() {
    return rotation;
  }

  /**
   * The time of day, for the boundaries of time rotation and the age of rotated files: the system's clock, or
   * one a test moves.
   */
  public Clock wallClock() {
    return wallClock;
  }

  /** {@code nnaudit.file.permissions}: the mode of new files, as {@code PosixFilePermissions} text. */
  public String filePermissions() {
    return filePermissions;
  }

  /** {@code nnaudit.durability} as it is written in configuration: none, interval, batch or sync. */
  public String durability() {
    return durability;
  }

  /**
   * Whether the pipeline fsyncs ({@link AuditSink#force}): durability other than none. A sink that can lose
   * what it wrote otherwise (a file closed on rotation, a new file's directory entry) makes that durable too.
   */
  public boolean durable() {
    return !"none".equals(durability);
  }

  /** {@code nnaudit.seal.*}: how the file sink seals the file, or null when it does not. */
  public SealSettings sealing() {
    return sealing;
  }

  /**
   * {@code nnaudit.failure.policy} is fail-closed: a sink that cannot do all it promises (write a seal, say)
   * fails its writes rather than write on without it.
   */
  public boolean failClosed() {
    return failClosed;
  }

  /**
   * The size of the crash journal's ring ({@code nnaudit.journal.size}) under {@code nnaudit.ack.policy=journal},
   * which the file sink keeps beside the file; 0 for none.
   */
  public int journalBytes() {
    return journalBytes;
  }

  /** {@code nnaudit.log4j2.logger}: the logger the log4j2 sink hands records to. */
  public String log4j2Logger() {
    return log4j2Logger;
  }

  /** Builds a {@link SinkContext}; every value but the Configuration must be set. */
  public static final class Builder {
    private final Configuration conf;
    private File file;
    private RotationSettings rotation;
    private Clock wallClock = Clock.systemUTC();
    private String filePermissions;
    private String durability;
    private String log4j2Logger;
    private SpoolGuard spoolGuard;
    private SealSettings sealing;
    private boolean failClosed = true;
    private int journalBytes;

    private Builder(Configuration conf) {
      this.conf = conf;
    }

    public Builder file(File f) {
      this.file = f;
      return this;
    }

    /** Rotation by size alone, files kept by count. */
    public Builder rotation(long maxSize, int backups) {
      return rotation(RotationSettings.bySize(maxSize, backups));
    }

    public Builder rotation(RotationSettings settings) {
      this.rotation = settings;
      return this;
    }

    /** The clock of time rotation and retention by age; the system's by default. */
    public Builder wallClock(Clock clock) {
      this.wallClock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    public Builder filePermissions(String posixText) {
      this.filePermissions = posixText;
      return this;
    }

    public Builder durability(String name) {
      this.durability = name;
      return this;
    }

    public Builder log4j2Logger(String name) {
      this.log4j2Logger = name;
      return this;
    }

    /** How to seal the file; null (the default) for no sealing. */
    public Builder sealing(SealSettings settings) {
      this.sealing = settings;
      return this;
    }

    /** Whether the failure policy is fail-closed (the default). */
    public Builder failClosed(boolean closed) {
      this.failClosed = closed;
      return this;
    }

    /** The crash journal's ring size, under ack policy journal; 0 (the default) for no journal. */
    public Builder journal(int bytes) {
      this.journalBytes = bytes;
      return this;
    }

    public SinkContext build() {
      return new SinkContext(this);
    }
  }
}
