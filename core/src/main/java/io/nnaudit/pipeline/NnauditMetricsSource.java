package io.nnaudit.pipeline;

import org.apache.hadoop.metrics2.MetricsCollector;
import org.apache.hadoop.metrics2.MetricsInfo;
import org.apache.hadoop.metrics2.MetricsRecordBuilder;
import org.apache.hadoop.metrics2.MetricsSource;
import org.apache.hadoop.metrics2.MetricsSystem;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.apache.hadoop.metrics2.lib.Interns;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.nnaudit.config.ConfigSpelling;
import io.nnaudit.settings.AckPolicy;
import io.nnaudit.settings.Durability;
import io.nnaudit.settings.QueueFullPolicy;
import io.nnaudit.ship.ShipStats;

/**
 * One pipeline's metrics, published through metrics2, so they appear in the NameNode's {@code /jmx} as
 * {@code Hadoop:service=NameNode,name=NnauditLogger} (a second audit file in the same JVM gets
 * {@code NnauditLogger-2}, and so on) and in every configured metrics sink.
 *
 * <p>Counts and gauges come from one {@link AuditStats} snapshot of the pipeline, taken when metrics2 asks,
 * so the hot path pays for nothing twice. metrics2 answers {@code /jmx} from its last snapshot of a source until
 * that is one metrics period (plus 1 ms) old, so what {@code /jmx} shows here may be that old; the latest seal,
 * which an operator anchors, is also shown live by {@link SealAnchor}. The batch-size and latency distributions
 * come from the metrics2 registry of {@link AuditMetrics}, with quantiles when
 * {@code dfs.metrics.percentiles.intervals} is set.
 */
final class NnauditMetricsSource implements MetricsSource {
  private static final Logger LOG = LoggerFactory.getLogger(NnauditMetricsSource.class);
  static final String BASE_NAME = "NnauditLogger";

  private static final MetricsInfo RECORD = Interns.info(BASE_NAME, "nnaudit audit logger");
  private static final MetricsInfo FILE = Interns.info("AuditFile", "The audit file this pipeline writes");
  private static final MetricsInfo POLICY = Interns.info("QueueFullPolicy", "BLOCK or DROP");
  private static final MetricsInfo DURABILITY = Interns.info("Durability", "none, interval, batch or sync");
  private static final MetricsInfo CAPACITY = Interns.info("QueueCapacity", "Capacity of the audit queue");
  private static final MetricsInfo DEPTH = Interns.info("QueueDepth", "Events in the queue now");
  private static final MetricsInfo CAPACITY_BYTES = Interns.info("QueueCapacityBytes",
      "The queue's byte budget (nnaudit.queue.capacity.bytes)");
  private static final MetricsInfo DEPTH_BYTES = Interns.info("QueueDepthBytes",
      "Heap held by queued events and the batch being written, in bytes");
  private static final MetricsInfo PEAK_BATCH = Interns.info("PeakBatchSize",
      "Most events the writer has taken from the queue for one batch");
  private static final MetricsInfo ACCEPTED = Interns.info("EventsAccepted", "Events the queue accepted");
  private static final MetricsInfo WRITTEN = Interns.info("EventsWritten", "Records written to the sink");
  private static final MetricsInfo JOURNALED = Interns.info("EventsJournaled",
      "Under ack.policy=journal, events acknowledged once their records were in the journal");
  private static final MetricsInfo JOURNAL_WAITS = Interns.info("JournalWaits",
      "Under ack.policy=journal, events the journal could not take, which waited for their writes");
  private static final MetricsInfo DROPPED = Interns.info("EventsDropped",
      "Events dropped (queue full under DROP, refused by the sink under fail-open, or refused outright and "
      + "answered with an error)");
  private static final MetricsInfo FAILED = Interns.info("EventsFailed",
      "Events that could not be captured, formatted or written");
  private static final MetricsInfo WAITS = Interns.info("HandlerWaits",
      "Times a handler found the queue full under BLOCK and waited");
  private static final MetricsInfo WAIT_MILLIS = Interns.info("HandlerWaitMillis",
      "Total time handlers spent waiting for room in the queue, in ms");
  private static final MetricsInfo HANDLERS_WAITING = Interns.info("HandlersWaiting",
      "Handlers waiting now for room in a full queue under BLOCK");
  private static final MetricsInfo UNWRITTEN = Interns.info("EventsUnwritten",
      "Accepted events not yet written: queued, or in the batch being written or retried (under "
      + "nnaudit.ack.policy=write their operations wait for them)");
  private static final MetricsInfo ABORTED = Interns.info("EventsAborted",
      "Operations answered with an error instead of success because their record could not be written");
  private static final MetricsInfo NOT_DURABLE = Interns.info("EventsNotDurable",
      "Records written under durability=sync whose fsync failed, never reported durable");
  private static final MetricsInfo ROTATION_FAILURES = Interns.info("RotationFailures",
      "Rotations of the audit file that failed; the live file kept growing and no backup was touched");
  private static final MetricsInfo REFUSED_REOPENS = Interns.info("RefusedReopens",
      "Times a replaced audit file was not followed because the path held a link, a non-regular file or "
      + "another user's file");
  private static final MetricsInfo FILES_COMPRESSED = Interns.info("FilesCompressed",
      "Rotated audit files compressed to file.N.gz since start-up (nnaudit.file.compress)");
  private static final MetricsInfo BYTES_BEFORE_COMPRESSION = Interns.info("CompressedBytesBefore",
      "Bytes of the rotated files compressed since start-up, before compression");
  private static final MetricsInfo BYTES_AFTER_COMPRESSION = Interns.info("CompressedBytesAfter",
      "Bytes of the rotated files compressed since start-up, compressed");
  private static final MetricsInfo COMPRESSION_FAILURES = Interns.info("CompressionFailures",
      "Compressions of rotated files that failed; each kept its plain file and is tried again later");
  private static final MetricsInfo SEALS = Interns.info("SealsWritten",
      "Seals written to the digest files since start-up (nnaudit.seal.enabled)");
  private static final MetricsInfo SEAL_FAILURES = Interns.info("SealFailures",
      "Seals that could not be signed or written; under fail-open their records stay unsealed until a seal works");
  private static final MetricsInfo SINCE_SEAL = Interns.info("MillisSinceLastSeal",
      "Milliseconds since the latest seal of the chain was written; -1 before the first");
  private static final MetricsInfo LATEST_SEAL = Interns.info("LatestSealHash",
      "SHA-256 of the latest seal when this snapshot was taken (in /jmx up to a metrics period old; the bean "
      + "NnauditSeal shows it live): record it off the host to anchor the chain (nnaudit verify --anchor)");
  private static final MetricsInfo LATEST_SEAL_MILLIS = Interns.info("LatestSealMillis",
      "When the latest seal of this snapshot was written, in ms since the epoch (0 before the first): the age of "
      + "LatestSealHash, however old the snapshot");
  private static final MetricsInfo SINK_ERRORS = Interns.info("SinkErrors", "Write or fsync calls that failed");
  private static final MetricsInfo SHIPPED = Interns.info("ShippedRecords",
      "Records Kafka acknowledged since start-up");
  private static final MetricsInfo SHIPPED_BYTES = Interns.info("ShippedBytes",
      "Bytes of the records Kafka acknowledged since start-up, line ends included");
  private static final MetricsInfo LAG_RECORDS = Interns.info("ShipLagRecords",
      "Records in the audit file not yet acknowledged by Kafka");
  private static final MetricsInfo LAG_BYTES = Interns.info("ShipLagBytes",
      "Bytes of the audit files not yet acknowledged by Kafka");
  private static final MetricsInfo LAG_MILLIS = Interns.info("ShipLagMillis",
      "Age of the oldest record not yet acknowledged by Kafka, in ms (0 when caught up)");
  private static final MetricsInfo SEND_ERRORS = Interns.info("ShipSendErrors",
      "Sends to Kafka that failed; each is resent from the last acknowledged record");
  private static final MetricsInfo SEND_RETRIES = Interns.info("ShipRetries",
      "Retries the Kafka producer made within its delivery timeout");
  private static final MetricsInfo SINCE_ACK = Interns.info("ShipMillisSinceLastAck",
      "Time since Kafka last acknowledged a record, in ms (-1 before the first)");
  private static final MetricsInfo FILES_WAITING = Interns.info("ShipFilesWaiting",
      "Audit files holding records not yet acknowledged by Kafka");
  private static final MetricsInfo LOST_FILES = Interns.info("ShipLostFiles",
      "Audit files deleted by rotation before they were shipped (nnaudit.kafka.spool.max.backups reached)");
  private static final MetricsInfo LOST_BYTES = Interns.info("ShipLostBytes",
      "Bytes never shipped because rotation deleted their file");
  private static final MetricsInfo SINCE_WRITE = Interns.info("MillisSinceLastWrite",
      "Time since the last successful write, in ms (-1 before the first)");

  private final AuditPipeline pipeline;
  private final String name;

  private NnauditMetricsSource(AuditPipeline pipeline, String name) {
    this.pipeline = pipeline;
    this.name = name;
  }

  /** Registers a source for the pipeline under the first free name; never fails the pipeline. */
  static NnauditMetricsSource register(AuditPipeline pipeline) {
    MetricsSystem ms = DefaultMetricsSystem.instance();
    synchronized (NnauditMetricsSource.class) {
      for (int i = 1; i < 1000; i++) {
        String name = i == 1 ? BASE_NAME : BASE_NAME + "-" + i;
        if (ms.getSource(name) == null) {
          NnauditMetricsSource s = new NnauditMetricsSource(pipeline, name);
          try {
            ms.register(name, "nnaudit audit logger for " + pipeline.settings().file(), s);
            return s;
          } catch (RuntimeException e) {
            LOG.warn("nnaudit: could not register metrics source {}; metrics are off for {}", name,
                pipeline.settings().file(), e);
            return null;
          }
        }
      }
    }
    return null;
  }

  void unregister() {
    try {
      DefaultMetricsSystem.instance().unregisterSource(name);
    } catch (RuntimeException e) {
      LOG.debug("nnaudit: unregistering metrics source {} failed", name, e);
    }
  }

  String name() {
    return name;
  }

  @Override
  public void getMetrics(MetricsCollector collector, boolean all) {
    AuditStats s = pipeline.stats();
    MetricsRecordBuilder rb = collector.addRecord(RECORD).setContext("dfs")
        .tag(FILE, pipeline.settings().file().getPath())
        .tag(POLICY, pipeline.settings().queueFullPolicy().name())
        .tag(DURABILITY, ConfigSpelling.of(pipeline.settings().durability()))
        .addGauge(CAPACITY, s.queueCapacity)
        .addGauge(DEPTH, s.queueDepth)
        .addGauge(CAPACITY_BYTES, s.queueCapacityBytes)
        .addGauge(DEPTH_BYTES, s.queueDepthBytes)
        .addGauge(PEAK_BATCH, s.peakBatchSize)
        .addCounter(ACCEPTED, s.accepted)
        .addCounter(WRITTEN, s.written)
        .addCounter(DROPPED, s.dropped)
        .addCounter(FAILED, s.captureFailed + s.writeFailed)
        .addCounter(WAITS, s.blockedWaits)
        .addCounter(WAIT_MILLIS, s.blockedWaitMillis)
        .addGauge(HANDLERS_WAITING, s.handlersWaiting)
        .addGauge(UNWRITTEN, s.unwritten)
        .addCounter(ABORTED, s.aborted)
        .addCounter(NOT_DURABLE, s.notDurable)
        .addCounter(SINK_ERRORS, s.sinkErrors)
        .addGauge(SINCE_WRITE, s.lastWriteMillis == 0 ? -1 : System.currentTimeMillis() - s.lastWriteMillis);
    if (pipeline.settings().ackPolicy() == AckPolicy.JOURNAL) {
      rb.addCounter(JOURNALED, s.journaled).addCounter(JOURNAL_WAITS, s.journalWaits);
    }
    if (s.rotationFailures >= 0) { // the file sink's own counts
      rb.addCounter(ROTATION_FAILURES, s.rotationFailures).addCounter(REFUSED_REOPENS, s.refusedReopens);
    }
    if (s.filesCompressed >= 0) { // rotated files compressed
      rb.addCounter(FILES_COMPRESSED, s.filesCompressed)
          .addCounter(BYTES_BEFORE_COMPRESSION, s.bytesBeforeCompression)
          .addCounter(BYTES_AFTER_COMPRESSION, s.bytesAfterCompression)
          .addCounter(COMPRESSION_FAILURES, s.compressionFailures);
    }
    if (s.sealsWritten >= 0) { // a sealed file
      rb.tag(LATEST_SEAL, s.latestSealHash)
          .addCounter(SEALS, s.sealsWritten)
          .addCounter(SEAL_FAILURES, s.sealFailures)
          .addGauge(SINCE_SEAL, s.lastSealMillis <= 0 ? -1 : System.currentTimeMillis() - s.lastSealMillis)
          .addGauge(LATEST_SEAL_MILLIS, Math.max(0, s.lastSealMillis));
    }
    ShipStats ship = pipeline.shipStats();
    if (ship != null) {
      rb.addCounter(SHIPPED, ship.shippedRecords)
          .addCounter(SHIPPED_BYTES, ship.shippedBytes)
          .addGauge(LAG_RECORDS, ship.lagRecords)
          .addGauge(LAG_BYTES, ship.lagBytes)
          .addGauge(LAG_MILLIS, ship.lagMillis)
          .addCounter(SEND_ERRORS, ship.sendErrors)
          .addCounter(SEND_RETRIES, ship.retries)
          .addGauge(SINCE_ACK, ship.millisSinceLastAck)
          .addGauge(FILES_WAITING, ship.filesWaiting)
          .addCounter(LOST_FILES, ship.lostFiles)
          .addCounter(LOST_BYTES, ship.lostBytes);
    }
    pipeline.metrics().registry.snapshot(rb, all);
  }
}
