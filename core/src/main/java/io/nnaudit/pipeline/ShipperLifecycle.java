package io.nnaudit.pipeline;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.nnaudit.config.ConfigSpelling;
import io.nnaudit.settings.NnauditSettings;
import io.nnaudit.ship.ShipStats;
import io.nnaudit.ship.Shipper;
import io.nnaudit.ship.ShipperContext;
import io.nnaudit.ship.SpoolGuard;
import io.nnaudit.sink.SinkContext;

/**
 * The shipper of one pipeline's audit file, when it is shipped: the guard that keeps unshipped files from
 * rotation (made with the pipeline, so that the sink opens with it), the shipper made when the pipeline opens,
 * before its writer starts, and stopped once the sink is closed.
 *
 * <p>Design note. What blocks: {@link #stop}, for at most {@code nnaudit.kafka.stop.timeout.ms} (plus what a
 * send blocked in the producer takes: {@link Shipper#stopBoundMs}); nothing else here waits, and no handler ever
 * waits for the shipper. What drops: nothing here; a shipper that cannot be made leaves the records in the file,
 * unshipped until the next start, and says so. Shut-down order: the shipper stops once the sink is closed, so
 * that it ships the sink's last seal: after the writer has finished and closed it ({@link AuditPipeline#close}),
 * or, at the JVM's exit, in the last hook after the handlers' own writes have ended and the sink is closed
 * ({@link #stopAtExit}); what no stop ships in its time is shipped at the next start. Who owns what:
 * {@link #shipper} is written once by the pipeline's open (under the registry's lock) and read by anyone;
 * {@link #stopped} is set by the first stop; the guard is thread-safe itself.
 */
final class ShipperLifecycle {
  /** The pipeline's log: its lines keep the logger name operators know. */
  private static final Logger LOG = LoggerFactory.getLogger(AuditPipeline.class);
  private final NnauditSettings settings;
  /** Keeps the files a shipper has not finished from rotation; null when the file is not shipped. */
  private final SpoolGuard spoolGuard;
  /** Written once by {@link #make} (null when nothing is shipped, or its shipper could not be made). */
  private volatile Shipper shipper;
  /** Set by the first stop: a pipeline closed before the JVM's exit has no shipper left for the last hook. */
  private final AtomicBoolean stopped = new AtomicBoolean();

  ShipperLifecycle(NnauditSettings settings) {
    this.settings = settings;
    this.spoolGuard = settings.shipperFactory() == null ? null : new SpoolGuard(settings.spoolMaxBackups());
  }

  /**
   * What the sink of {@code s} (this pipeline's settings, or the previous ones' when this pipeline's sink cannot
   * be opened) is opened with: when this pipeline ships that file, its rotation keeps what the shipper has not
   * finished.
   */
  SinkContext sinkContext(NnauditSettings s) {
    boolean shipped = spoolGuard != null && s.file().equals(settings.file());
    return shipped ? s.sinkContext().withSpoolGuard(spoolGuard) : s.sinkContext();
  }

  /**
   * Makes the shipper, before the writer starts: it reads its checkpoint and tells the guard which files it
   * needs (until then every file is held). Its settings were checked when the settings were read; if it still
   * cannot be made, the NameNode goes on auditing to the file without shipping, and says so. Does nothing when
   * the file is not shipped.
   */
  void make() {
    if (spoolGuard == null) {
      return;
    }
    try {
      shipper = settings.shipperFactory().create(new ShipperContext(settings.sinkContext().conf(), settings.file(),
          settings.sinkContext().maxBackups(), ConfigSpelling.of(settings.recordFormat()), spoolGuard,
          settings.sinkContext().rotation().datedNames()));
    } catch (RuntimeException | LinkageError e) {
      LOG.error("nnaudit: could not start shipping {}: {}; the records stay in the file, and nothing is shipped "
          + "until the next start", settings.file(), e.toString(), e);
      spoolGuard.release(); // rotation keeps nnaudit.file.max.backups, as without shipping
    }
  }

  /** What the last shutdown hook may take beyond its own work for the shipper's stop. */
  long hookExtraMs() {
    Shipper sh = shipper;
    return sh == null ? 0 : sh.stopBoundMs(settings.shipStopTimeoutMs()) + 1000;
  }

  /** Starts the shipper made by {@link #make}, if any. */
  void start() {
    Shipper sh = shipper;
    if (sh != null) {
      sh.start();
    }
  }

  /** After the writer has closed the sink: ships for at most nnaudit.kafka.stop.timeout.ms more, then stops. */
  void stop() {
    Shipper sh = shipper;
    if (sh != null && stopped.compareAndSet(false, true)) {
      sh.stop(settings.shipStopTimeoutMs());
    }
  }

  /**
   * In the last hook, once the sink is closed: stops the shipper as {@link #stop} does, and says on standard
   * error (log4j is shut down by then) what it had shipped and what is left for the next start.
   */
  void stopAtExit() {
    Shipper sh = shipper;
    if (sh == null || !stopped.compareAndSet(false, true)) {
      return;
    }
    sh.stop(settings.shipStopTimeoutMs());
    ShipStats s = sh.stats();
    boolean all = s.lagRecords == 0 && s.lagBytes == 0;
    String left = all ? ", every record of the file acknowledged"
        : s.lagBytes < 0 ? "; it had not begun, so the next start ships what the file holds"
        : "; " + s.lagRecords + " records (" + s.lagBytes + " bytes) are left for the next start";
    System.err.println(Instant.now() + (all ? " INFO" : " WARN") + " nnaudit: stopped shipping " + settings.file()
        + " as the NameNode stops: " + s.shippedRecords + " records shipped since the start" + left);
  }

  /** The shipper's counts and lag now, or null when nothing is shipped. */
  ShipStats stats() {
    Shipper sh = shipper;
    return sh == null ? null : sh.stats();
  }
}
