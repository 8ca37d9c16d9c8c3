package io.nnaudit.settings;

import static io.nnaudit.config.NnauditConfigKeys.*;

import java.io.File;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CommonConfigurationKeysPublic;
import org.apache.hadoop.hdfs.DFSConfigKeys;

import io.nnaudit.config.ConfigCheck;
import io.nnaudit.config.ConfigError;
import io.nnaudit.config.ConfigSpelling;
import io.nnaudit.config.FilePermissionsValue;
import io.nnaudit.config.RecordingConfigReader;
import io.nnaudit.format.FormatOptions;
import io.nnaudit.seal.SealSettings;
import io.nnaudit.ship.ShipperFactory;
import io.nnaudit.sink.RotationSettings;
import io.nnaudit.sink.SinkContext;
import io.nnaudit.sink.SinkFactory;

/**
 * Every setting nnaudit uses, read once from the NameNode's {@link Configuration} and validated.
 * Immutable. {@link #fromConf} throws {@link IllegalArgumentException} naming the key, the value and what is
 * allowed. Every read goes through a {@link RecordingConfigReader}, whose record of the values read decides
 * equality ({@link #equals}): this class's own reads, and those of the sealing settings ({@link SealSettings})
 * and of the shipper's check ({@link ShipperFactory}, which reads stock keys such as
 * {@code dfs.ha.namenode.id} to name the NameNode), which are given a recording copy of the Configuration. Two
 * readers of the Configuration are not recorded: the shipper reads its settings again from the copy in the
 * {@link SinkContext} when the pipeline opens, the same keys its check read and recorded; and a custom sink
 * reads its own keys from that copy, which count through the {@code nnaudit.*} entries every reading records.
 */
public final class NnauditSettings {
  /** The largest queue we allow: far more than any NameNode's handler count, small enough to bound memory. */
  public static final int MAX_QUEUE_CAPACITY = 1 << 20;
  /**
   * Queue slots per RPC handler when {@code nnaudit.queue.capacity} is 0. One slot per handler is enough for
   * every handler to have one event in flight, but a queue that small is full whenever the writer is not
   * running, and then every further event costs its handler a wake-up (measured with JMH, 64 producers: 16
   * slots per handler gave ten times the throughput of one). An event is a few hundred bytes, so 16 per
   * handler is a few MB at most.
   */
  public static final int QUEUE_SLOTS_PER_HANDLER = 16;

  /** What a record looks like. */
  public enum RecordFormat {
    /** The stock hdfs-audit.log line, byte for byte. */
    HDFS,
    /** One JSON object per line, with typed, documented fields. */
    JSON
  }

  /** How each record begins. */
  public enum RecordPrefix {
    /** {@code %d{ISO8601} %p %c{2}: }, the stock hdfs-audit.log layout. */
    LOG4J,
    /** The bare message, as {@code FSNamesystem.audit} hands it to log4j. */
    NONE
  }

  private final RecordFormat recordFormat;
  private final int queueCapacity;
  private final QueueFullPolicy queueFullPolicy;
  private final int batchMaxEvents;
  private final long queueCapacityBytes;
  private final AckPolicy ackPolicy;
  private final long handlerMaxWaitMs;
  private final long shutdownTimeoutMs;
  private final long dropWarnIntervalMs;
  private final SinkFactory sinkFactory;
  /** Null when the audit file is not shipped. */
  private final ShipperFactory shipperFactory;
  private final int spoolMaxBackups;
  private final long shipStopTimeoutMs;
  /** The audit file, its rotation and mode, and the other values a sink is given. */
  private final SinkContext sinkContext;
  private final Durability durability;
  private final long writerLingerMs;
  private final long durabilityIntervalMs;
  private final int durabilityIntervalRecords;
  private final FailurePolicy failurePolicy;
  private final long failureRetryIntervalMs;
  private final Set<String> debugCmds;
  private final int[] percentileIntervals;
  /** The prefix and the stock keys that shape the record. */
  private final FormatOptions formatOptions;
  /** What these settings were read from: see {@link #equals}. */
  private final Map<String, String> values;

  private NnauditSettings(RecordingConfigReader conf, SinkFactory givenSinks) {
    File file = auditFile(conf);
    long maxFileSize = ConfigCheck.bytesInRange(conf, FILE_MAX_SIZE_KEY, FILE_MAX_SIZE_DEFAULT,
        1024, Long.MAX_VALUE / 2);
    int maxBackups = ConfigCheck.intInRange(conf, FILE_MAX_BACKUPS_KEY, FILE_MAX_BACKUPS_DEFAULT, 1, 10_000,
        "rotated files kept; 0 is refused because rotation would then destroy audit records");
    String filePermissions = FilePermissionsValue.parse(conf.getTrimmed(FILE_PERMISSIONS_KEY,
        FILE_PERMISSIONS_DEFAULT), FILE_PERMISSIONS_KEY);
    this.recordFormat = ConfigCheck.enumValue(conf, RECORD_FORMAT_KEY, RECORD_FORMAT_DEFAULT, RecordFormat.class);
    RecordPrefix recordPrefix = ConfigCheck.enumValue(conf, RECORD_PREFIX_KEY, RECORD_PREFIX_DEFAULT,
        RecordPrefix.class);
    int handlers = ConfigCheck.intInRange(conf, DFSConfigKeys.DFS_NAMENODE_HANDLER_COUNT_KEY,
        DFSConfigKeys.DFS_NAMENODE_HANDLER_COUNT_DEFAULT, 1, MAX_QUEUE_CAPACITY, "");
    int capacity = ConfigCheck.intInRange(conf, QUEUE_CAPACITY_KEY, QUEUE_CAPACITY_DEFAULT, 0,
        MAX_QUEUE_CAPACITY, "0 means " + QUEUE_SLOTS_PER_HANDLER + " x dfs.namenode.handler.count");
    this.queueCapacity = capacity == 0 ? (int) Math.min(MAX_QUEUE_CAPACITY, (long) handlers * QUEUE_SLOTS_PER_HANDLER)
        : capacity;
    this.queueFullPolicy = ConfigCheck.enumValue(conf, QUEUE_FULL_POLICY_KEY, QUEUE_FULL_POLICY_DEFAULT,
        QueueFullPolicy.class);
    this.queueCapacityBytes = ConfigCheck.bytesInRange(conf, QUEUE_CAPACITY_BYTES_KEY, QUEUE_CAPACITY_BYTES_DEFAULT,
        64 * 1024, Long.MAX_VALUE / 4);
    this.ackPolicy = ConfigCheck.enumValue(conf, ACK_POLICY_KEY, ACK_POLICY_DEFAULT, AckPolicy.class);
    int journalSize = (int) (ConfigCheck.bytesInRange(conf, JOURNAL_SIZE_KEY, JOURNAL_SIZE_DEFAULT, 256 * 1024,
        1L << 30) & ~15L); // read whatever the policy, as every key is: a change is never silently ignored
    int journalBytes = ackPolicy == AckPolicy.JOURNAL ? journalSize : 0;
    this.handlerMaxWaitMs = ConfigCheck.longInRange(conf, HANDLER_MAX_WAIT_MS_KEY, HANDLER_MAX_WAIT_MS_DEFAULT, 1,
        86_400_000L, "milliseconds");
    this.batchMaxEvents = ConfigCheck.intInRange(conf, WRITER_BATCH_MAX_EVENTS_KEY,
        WRITER_BATCH_MAX_EVENTS_DEFAULT, 1, MAX_QUEUE_CAPACITY, "events per write");
    this.shutdownTimeoutMs = ConfigCheck.longInRange(conf, SHUTDOWN_TIMEOUT_MS_KEY,
        SHUTDOWN_TIMEOUT_MS_DEFAULT, 0, 3_600_000L, "milliseconds");
    this.dropWarnIntervalMs = ConfigCheck.longInRange(conf, DROP_WARN_INTERVAL_MS_KEY,
        DROP_WARN_INTERVAL_MS_DEFAULT, 0, 86_400_000L, "milliseconds; 0 warns on every drop");
    this.durability = ConfigCheck.enumValue(conf, DURABILITY_KEY, DURABILITY_DEFAULT, Durability.class);
    this.writerLingerMs = ConfigCheck.longInRange(conf, WRITER_LINGER_MS_KEY, WRITER_LINGER_MS_DEFAULT, 0, 1000,
        "milliseconds; 0 writes as soon as events arrive");
    this.durabilityIntervalMs = ConfigCheck.longInRange(conf, DURABILITY_INTERVAL_MS_KEY,
        DURABILITY_INTERVAL_MS_DEFAULT, 1, 3_600_000L, "milliseconds");
    this.durabilityIntervalRecords = ConfigCheck.intInRange(conf, DURABILITY_INTERVAL_RECORDS_KEY,
        DURABILITY_INTERVAL_RECORDS_DEFAULT, 1, Integer.MAX_VALUE, "records");
    this.failurePolicy = ConfigCheck.enumValue(conf, FAILURE_POLICY_KEY, FAILURE_POLICY_DEFAULT,
        FailurePolicy.class);
    this.failureRetryIntervalMs = ConfigCheck.longInRange(conf, FAILURE_RETRY_INTERVAL_MS_KEY,
        FAILURE_RETRY_INTERVAL_MS_DEFAULT, 1, 600_000L, "milliseconds");

    boolean callerContextEnabled = ConfigCheck.bool(conf,
        CommonConfigurationKeysPublic.HADOOP_CALLER_CONTEXT_ENABLED_KEY,
        CommonConfigurationKeysPublic.HADOOP_CALLER_CONTEXT_ENABLED_DEFAULT);
    int callerContextMaxLen = ConfigCheck.intInRange(conf,
        CommonConfigurationKeysPublic.HADOOP_CALLER_CONTEXT_MAX_SIZE_KEY,
        CommonConfigurationKeysPublic.HADOOP_CALLER_CONTEXT_MAX_SIZE_DEFAULT, 0, Integer.MAX_VALUE, "characters");
    int callerSignatureMaxLen = ConfigCheck.intInRange(conf,
        CommonConfigurationKeysPublic.HADOOP_CALLER_CONTEXT_SIGNATURE_MAX_SIZE_KEY,
        CommonConfigurationKeysPublic.HADOOP_CALLER_CONTEXT_SIGNATURE_MAX_SIZE_DEFAULT, 0, Integer.MAX_VALUE,
        "bytes");
    boolean trackingIdEnabled = ConfigCheck.bool(conf, DFSConfigKeys.DFS_NAMENODE_AUDIT_LOG_TOKEN_TRACKING_ID_KEY,
        DFSConfigKeys.DFS_NAMENODE_AUDIT_LOG_TOKEN_TRACKING_ID_DEFAULT);
    this.percentileIntervals = percentileIntervals(conf);
    this.debugCmds = Collections.unmodifiableSet(new HashSet<>(Arrays.asList(
        conf.getTrimmedStrings(DFSConfigKeys.DFS_NAMENODE_AUDIT_LOG_DEBUG_CMDLIST))));
    this.formatOptions = FormatOptions.builder().log4jPrefix(recordPrefix == RecordPrefix.LOG4J)
        .callerContext(callerContextEnabled, callerContextMaxLen, callerSignatureMaxLen)
        .trackingId(trackingIdEnabled).build();
    RotationSettings rotation = RotationSettingsReader.read(conf, maxFileSize, maxBackups);
    this.sinkContext = SinkContext.builder(conf.copy()).file(file).rotation(rotation)
        .filePermissions(filePermissions).durability(ConfigSpelling.of(durability))
        .log4j2Logger(conf.getTrimmed(LOG4J2_LOGGER_KEY, LOG4J2_LOGGER_DEFAULT))
        .sealing(SealSettings.fromConf(conf.recordingCopy()))
        .failClosed(failurePolicy == FailurePolicy.FAIL_CLOSED).journal(journalBytes).build();
    this.sinkFactory = givenSinks != null ? givenSinks
        : SinkFactory.forSetting(conf.getTrimmed(SINK_KEY, SINK_DEFAULT)); // loads the class
    this.shipperFactory = ShipperFactory.fromConf(conf.recordingCopy()); // checks the shipper's keys
    this.spoolMaxBackups = ConfigCheck.intInRange(conf, KAFKA_SPOOL_MAX_BACKUPS_KEY,
        KAFKA_SPOOL_MAX_BACKUPS_DEFAULT, 1, 100_000, "rotated files kept while not yet shipped");
    this.shipStopTimeoutMs = ConfigCheck.longInRange(conf, KAFKA_STOP_TIMEOUT_MS_KEY, KAFKA_STOP_TIMEOUT_MS_DEFAULT,
        0, 600_000L, "milliseconds");
    if (sinkContext.sealing() != null && givenSinks == null
        && !sinkFactory.equals(SinkFactory.forSetting(SinkFactory.FILE))) {
      throw ConfigError.invalid(SEAL_ENABLED_KEY, "true", "false while " + SINK_KEY + " is not file: seals are "
          + "written beside the audit file");
    }
    if (shipperFactory != null && givenSinks == null && !sinkFactory.equals(SinkFactory.forSetting(SinkFactory.FILE))) {
      throw ConfigError.invalid(KAFKA_BOOTSTRAP_SERVERS_KEY, conf.getTrimmed(KAFKA_BOOTSTRAP_SERVERS_KEY),
          "no shipping while " + SINK_KEY + " is not file: the shipper forwards the local audit file");
    }
    if (ackPolicy == AckPolicy.JOURNAL) {
      checkJournal(givenSinks, conf.getTrimmed(SINK_KEY, SINK_DEFAULT));
    }
    this.values = conf.values(); // last: after every read
  }

  /** What ack policy journal needs: checked here, so that the NameNode does not start without it. */
  private void checkJournal(SinkFactory givenSinks, String sinkSetting) {
    String needs = null;
    if (durability != Durability.NONE) {
      needs = DURABILITY_KEY + "=none (a journal in the page cache is no fsync)";
    } else if (givenSinks == null && (SinkFactory.LOG4J2.equalsIgnoreCase(sinkSetting)
        || "io.nnaudit.sink.Log4j2Sink".equals(sinkSetting))) {
      needs = SINK_KEY + "=file (the journal is kept beside the audit file by the file sink)";
    } else if (sinkContext.sealing() != null) {
      needs = SEAL_ENABLED_KEY + "=false (replayed records are not sealed by the run that wrote them)";
    } else if (!io.nnaudit.journal.RecordJournal.jvmSupported()) {
      needs = "Java 14 or later (this is " + System.getProperty("java.version") + "; older JVMs crash on a fault "
          + "while copying into a mapped file)";
    }
    if (needs != null) {
      throw ConfigError.invalid(ACK_POLICY_KEY, "journal", "write or queue; journal needs " + needs);
    }
  }

  /** Reads and validates every setting; throws {@link IllegalArgumentException} on the first bad one. */
  public static NnauditSettings fromConf(Configuration conf) {
    return new NnauditSettings(new RecordingConfigReader(conf), null);
  }

  /**
   * As {@link #fromConf(Configuration)}, with sinks opened by {@code sinks} instead of the one
   * {@code nnaudit.sink} names (which is then not read): for embedders and tests that give a sink of their own.
   */
  public static NnauditSettings fromConf(Configuration conf, SinkFactory sinks) {
    return new NnauditSettings(new RecordingConfigReader(conf), Objects.requireNonNull(sinks, "sinks"));
  }

  private static int[] percentileIntervals(RecordingConfigReader conf) {
    String key = DFSConfigKeys.DFS_METRICS_PERCENTILES_INTERVALS_KEY;
    String[] raw = conf.getTrimmedStrings(key);
    int[] out = new int[raw.length];
    for (int i = 0; i < raw.length; i++) {
      try {
        out[i] = Integer.parseInt(raw[i]);
      } catch (NumberFormatException e) {
        throw ConfigError.invalid(key, conf.getTrimmed(key), "a comma-separated list of positive intervals in seconds",
            e);
      }
      if (out[i] <= 0) {
        throw ConfigError.invalid(key, conf.getTrimmed(key), "a comma-separated list of positive intervals in seconds");
      }
    }
    return out;
  }

  private static File auditFile(RecordingConfigReader conf) {
    String raw = conf.getExpanded(FILE_PATH_KEY, FILE_PATH_DEFAULT); // ${hadoop.log.dir} in the default
    String allowed = "an absolute path to a file the NameNode user can create and append to";
    if (raw == null || raw.isEmpty() || raw.contains("${")) {
      // An unresolved ${hadoop.log.dir}: the NameNode was not started by the hadoop scripts.
      throw ConfigError.invalid(FILE_PATH_KEY, raw, allowed + " (set it explicitly when hadoop.log.dir is not a "
          + "system property)");
    }
    File f = new File(raw);
    if (!f.isAbsolute()) {
      throw ConfigError.invalid(FILE_PATH_KEY, raw, allowed);
    }
    if (f.isDirectory()) {
      throw ConfigError.invalid(FILE_PATH_KEY, raw, allowed + "; it names a directory");
    }
    return f.getAbsoluteFile();
  }

  /**
   * The audit file, absolute: the sink's ({@link SinkContext#file}), and what names the pipeline in the
   * registry, its thread, its log lines and its metrics.
   */
  public File file() {
    return sinkContext.file();
  }

  public RecordFormat recordFormat() {
    return recordFormat;
  }

  /** What the formatters need of these settings: the prefix, and the caller-context and tracking-id rules. */
  public FormatOptions formatOptions() {
    return formatOptions;
  }

  /** The prefix of hdfs records ({@link FormatOptions#log4jPrefix}); json records carry their time in a field. */
  public RecordPrefix recordPrefix() {
    return formatOptions.log4jPrefix() ? RecordPrefix.LOG4J : RecordPrefix.NONE;
  }

  public int queueCapacity() {
    return queueCapacity;
  }

  public QueueFullPolicy queueFullPolicy() {
    return queueFullPolicy;
  }

  public int batchMaxEvents() {
    return batchMaxEvents;
  }

  public long shutdownTimeoutMs() {
    return shutdownTimeoutMs;
  }

  public long dropWarnIntervalMs() {
    return dropWarnIntervalMs;
  }

  /** What opens the sink: {@code nnaudit.sink} resolved and checked, or the factory an embedder gave. */
  public SinkFactory sinkFactory() {
    return sinkFactory;
  }

  /** What a sink is given when it is opened: the file, its rotation and mode, durability, the log4j2 logger. */
  /** How the audit file is shipped, or null when it is not. */
  public ShipperFactory shipperFactory() {
    return shipperFactory;
  }

  /** {@code nnaudit.kafka.spool.max.backups}. */
  public int spoolMaxBackups() {
    return spoolMaxBackups;
  }

  /** {@code nnaudit.kafka.stop.timeout.ms}. */
  public long shipStopTimeoutMs() {
    return shipStopTimeoutMs;
  }

  public SinkContext sinkContext() {
    return sinkContext;
  }

  /**
   * The writer's linger in milliseconds: 0 whenever responses wait for the writer (ack policy write, or
   * durability=sync), where the write itself is where events gather.
   */
  public long writerLingerMs() {
    return responsesWaitForWriter() ? 0 : writerLingerMs;
  }

  /** The byte budget of the queue: the most heap queued events may hold. */
  public long queueCapacityBytes() {
    return queueCapacityBytes;
  }

  public AckPolicy ackPolicy() {
    return ackPolicy;
  }

  /** Whether an operation's acknowledgement waits for the writer (a ticket per event). */
  public boolean responsesWaitForWriter() {
    return ackPolicy == AckPolicy.WRITE || durability == Durability.SYNC;
  }

  public long handlerMaxWaitMs() {
    return handlerMaxWaitMs;
  }

  public Durability durability() {
    return durability;
  }

  public long durabilityIntervalMs() {
    return durabilityIntervalMs;
  }

  public int durabilityIntervalRecords() {
    return durabilityIntervalRecords;
  }

  public FailurePolicy failurePolicy() {
    return failurePolicy;
  }

  public long failureRetryIntervalMs() {
    return failureRetryIntervalMs;
  }

  /** The guarantee of durability=sync holds only with BLOCK and fail-closed; null when it holds. */
  public String weakenedSyncGuarantee() {
    if (durability != Durability.SYNC) {
      return null;
    }
    if (queueFullPolicy == QueueFullPolicy.DROP) {
      return QUEUE_FULL_POLICY_KEY + "=DROP lets a handler drop its event, and acknowledge its operation, "
          + "when the queue is full";
    }
    if (failurePolicy == FailurePolicy.FAIL_OPEN) {
      return FAILURE_POLICY_KEY + "=fail-open releases handlers whose records the disk refused";
    }
    return null;
  }

  /** {@code dfs.metrics.percentiles.intervals}: seconds per latency-quantile window; empty for none. */
  public int[] percentileIntervals() {
    return percentileIntervals.clone();
  }

  public Set<String> debugCmds() {
    return debugCmds;
  }

  /**
   * Whether both were read from the same values: every key read, here or by the sealing settings and the
   * shipper's check (as read: trimmed, expanded, defaults for unset keys), and every {@code nnaudit.*} entry,
   * so that no setting, present or future, can be left out of the comparison. A re-initialize keeps the
   * running pipeline only for equal settings. The sink factory is compared as well: one given by an embedder is
   * not in the configuration.
   */
  @Override
  public boolean equals(Object o) {
    if (!(o instanceof NnauditSettings)) {
      return false;
    }
    NnauditSettings s = (NnauditSettings) o;
    return values.equals(s.values) && sinkFactory.equals(s.sinkFactory)
        && Objects.equals(shipperFactory, s.shipperFactory);
  }

  @Override
  public int hashCode() {
    return Objects.hash(values, sinkFactory);
  }

  @Override
  public String toString() {
    return "file=" + file() + ", queueCapacity=" + queueCapacity + ", policy=" + queueFullPolicy
        + ", ack=" + ackPolicy + ", batchMaxEvents=" + batchMaxEvents + ", rotation=[" + sinkContext.rotation() + "]"
        + ", filePermissions=" + sinkContext.filePermissions()
        + ", recordFormat=" + recordFormat + ", recordPrefix=" + recordPrefix()
        + ", sink=" + sinkFactory + (shipperFactory == null ? "" : ", shipping=" + shipperFactory)
        + ", durability=" + durability + (durability == Durability.INTERVAL ? "(" + durabilityIntervalMs + " ms/"
        + durabilityIntervalRecords + " records)" : "") + ", failurePolicy=" + failurePolicy;
  }
}
