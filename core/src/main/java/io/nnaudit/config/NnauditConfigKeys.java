package io.nnaudit.config;

/**
 * Every configuration key nnaudit reads, as {@code KEY} / {@code _DEFAULT} pairs in the style of Hadoop's
 * {@code DFSConfigKeys}. Each key is documented for operators in {@code conf/nnaudit-default.xml}.
 *
 * <p>nnaudit also honours the stock audit keys that shape the record itself, so that its lines match
 * {@code hdfs-audit.log}: {@code hadoop.caller.context.enabled}, {@code hadoop.caller.context.max.size},
 * {@code hadoop.caller.context.signature.max.size}, {@code dfs.namenode.audit.log.token.tracking.id} and
 * {@code dfs.namenode.audit.log.debug.cmdlist}. Those are read under Hadoop's own names and defaults.
 */
public final class NnauditConfigKeys {
  private NnauditConfigKeys() {
  }

  public static final String PREFIX = "nnaudit.";

  /** The audit file. Parent directories are created. */
  public static final String FILE_PATH_KEY = PREFIX + "file.path";
  public static final String FILE_PATH_DEFAULT = "${hadoop.log.dir}/nnaudit-audit.log";

  /** Size at which the file is rotated, in bytes; accepts Hadoop size suffixes (k, m, g). */
  public static final String FILE_MAX_SIZE_KEY = PREFIX + "file.max.size";
  public static final long FILE_MAX_SIZE_DEFAULT = 256L * 1024 * 1024;

  /** Rotated files kept beside the live one (file.1 .. file.N); the stock RFAAUDIT keeps 20. */
  public static final String FILE_MAX_BACKUPS_KEY = PREFIX + "file.max.backups";
  public static final int FILE_MAX_BACKUPS_DEFAULT = 20;

  /**
   * Time boundaries at which the file is also rotated: {@code none} (by size alone), {@code hourly} or
   * {@code daily}, in {@link #FILE_ROTATE_ZONE_KEY}. With a size too, whichever comes first.
   */
  public static final String FILE_ROTATE_PERIOD_KEY = PREFIX + "file.rotate.period";
  public static final String FILE_ROTATE_PERIOD_DEFAULT = "none";

  /** The time zone of the rotation period's hours and days, as a java.time zone id. */
  public static final String FILE_ROTATE_ZONE_KEY = PREFIX + "file.rotate.zone";
  public static final String FILE_ROTATE_ZONE_DEFAULT = "UTC";

  /**
   * How rotated files are named: {@code numbered} ({@code file.1} the newest, as the stock RFAAUDIT), {@code dated}
   * ({@code file.2026-11-25.1}: the period and a sequence within it), or a pattern of what follows the live file's
   * name in the log4j2 style, with one {@code %d{...}} and at most one {@code %i}.
   */
  public static final String FILE_ROTATED_NAMES_KEY = PREFIX + "file.rotated.names";
  public static final String FILE_ROTATED_NAMES_DEFAULT = "numbered";

  /** How rotated files are compressed, off the writer's path: {@code none} or {@code gzip}. */
  public static final String FILE_COMPRESS_KEY = PREFIX + "file.compress";
  public static final String FILE_COMPRESS_DEFAULT = "none";

  /** Rotated files older than this are deleted (Hadoop time suffixes: 30d, 12h); 0 keeps them whatever their age. */
  public static final String FILE_MAX_AGE_KEY = PREFIX + "file.max.age";
  public static final String FILE_MAX_AGE_DEFAULT = "0";

  /** The most disk the rotated files may take together (size suffixes accepted); 0 for no bound. */
  public static final String FILE_MAX_TOTAL_SIZE_KEY = PREFIX + "file.max.total.size";
  public static final long FILE_MAX_TOTAL_SIZE_DEFAULT = 0;

  /** Octal mode of newly created audit files (before the process umask). */
  public static final String FILE_PERMISSIONS_KEY = PREFIX + "file.permissions";
  public static final String FILE_PERMISSIONS_DEFAULT = "640";

  /** The record format: {@code hdfs} (the stock hdfs-audit.log line) or {@code json} (one object per line). */
  public static final String RECORD_FORMAT_KEY = PREFIX + "record.format";
  public static final String RECORD_FORMAT_DEFAULT = "hdfs";

  /** Text put before each record: {@code log4j} (the stock hdfs-audit.log layout) or {@code none}. */
  public static final String RECORD_PREFIX_KEY = PREFIX + "record.prefix";
  public static final String RECORD_PREFIX_DEFAULT = "log4j";

  /** Queue capacity in events; 0 means 16 x the NameNode's dfs.namenode.handler.count. */
  public static final String QUEUE_CAPACITY_KEY = PREFIX + "queue.capacity";
  public static final int QUEUE_CAPACITY_DEFAULT = 0;

  /**
   * The most heap the queued events may hold, in bytes (Hadoop size suffixes accepted): a queue full by this
   * budget behaves as a queue full by count, under the same BLOCK or DROP policy.
   */
  public static final String QUEUE_CAPACITY_BYTES_KEY = PREFIX + "queue.capacity.bytes";
  public static final long QUEUE_CAPACITY_BYTES_DEFAULT = 64L * 1024 * 1024;

  /** What a handler does when the queue is full: BLOCK (wait, lose nothing) or DROP (never wait; count). */
  public static final String QUEUE_FULL_POLICY_KEY = PREFIX + "queue.full.policy";
  public static final String QUEUE_FULL_POLICY_DEFAULT = "BLOCK";

  /**
   * When an audited operation is acknowledged: {@code write} (its RPC response waits until its record is
   * written, so a NameNode crash loses no acknowledged operation) or {@code queue} (as soon as it is queued).
   */
  public static final String ACK_POLICY_KEY = PREFIX + "ack.policy";
  public static final String ACK_POLICY_DEFAULT = "write";

  /**
   * Under {@code nnaudit.ack.policy=journal}: the bytes of the crash journal's ring, kept in a hidden file beside
   * the audit file ({@code .<name>.journal}). A record the ring has no room for waits for its write.
   */
  public static final String JOURNAL_SIZE_KEY = PREFIX + "journal.size";
  public static final long JOURNAL_SIZE_DEFAULT = 4L * 1024 * 1024;

  /**
   * The longest logAuditEvent waits, in milliseconds: for room in the queue under BLOCK, and for its record
   * when called outside an RPC. At the bound an RPC's response is aborted with an error, never sent as success.
   */
  public static final String HANDLER_MAX_WAIT_MS_KEY = PREFIX + "handler.max.wait.ms";
  public static final long HANDLER_MAX_WAIT_MS_DEFAULT = 60_000L;

  /** The most events the writer takes from the queue and writes with one write call. */
  public static final String WRITER_BATCH_MAX_EVENTS_KEY = PREFIX + "writer.batch.max.events";
  public static final int WRITER_BATCH_MAX_EVENTS_DEFAULT = 1024;

  /** When records are fsynced: none, interval, batch or sync. */
  public static final String DURABILITY_KEY = PREFIX + "durability";
  public static final String DURABILITY_DEFAULT = "none";

  /** Under durability=interval, the longest written records wait for an fsync, in milliseconds. */
  public static final String DURABILITY_INTERVAL_MS_KEY = PREFIX + "durability.interval.ms";
  public static final long DURABILITY_INTERVAL_MS_DEFAULT = 1000L;

  /** Under durability=interval, the most written records that wait for an fsync. */
  public static final String DURABILITY_INTERVAL_RECORDS_KEY = PREFIX + "durability.interval.records";
  public static final int DURABILITY_INTERVAL_RECORDS_DEFAULT = 1000;

  /** What the writer does when the sink fails: fail-closed (retry; handlers wait) or fail-open (drop; count). */
  public static final String FAILURE_POLICY_KEY = PREFIX + "failure.policy";
  public static final String FAILURE_POLICY_DEFAULT = "fail-closed";

  /** Under fail-closed, the pause between two attempts to write a batch the sink refused, in milliseconds. */
  public static final String FAILURE_RETRY_INTERVAL_MS_KEY = PREFIX + "failure.retry.interval.ms";
  public static final long FAILURE_RETRY_INTERVAL_MS_DEFAULT = 500L;

  /**
   * After a batch that did not fill up, how long the writer lets new events gather before it drains again, in
   * milliseconds; 0 writes as soon as events arrive. Applies only with nnaudit.ack.policy=queue (and not under
   * durability=sync or DROP), where no response waits for the writer.
   */
  public static final String WRITER_LINGER_MS_KEY = PREFIX + "writer.linger.ms";
  public static final long WRITER_LINGER_MS_DEFAULT = 5L;

  /** The longest the JVM shutdown hook waits for the queue to drain to the file, in milliseconds. */
  public static final String SHUTDOWN_TIMEOUT_MS_KEY = PREFIX + "shutdown.timeout.ms";
  public static final long SHUTDOWN_TIMEOUT_MS_DEFAULT = 10_000L;

  /** Least time between two WARN lines about dropped events in the NameNode log, in milliseconds. */
  public static final String DROP_WARN_INTERVAL_MS_KEY = PREFIX + "drop.warn.interval.ms";
  public static final long DROP_WARN_INTERVAL_MS_DEFAULT = 10_000L;

  /**
   * Where records go: {@code file} (the rotating audit file), {@code log4j2} (a named log4j2 logger), or the
   * name of a class implementing {@link io.nnaudit.sink.AuditSink} with a public constructor taking a
   * {@link io.nnaudit.sink.SinkContext}.
   */
  public static final String SINK_KEY = PREFIX + "sink";
  public static final String SINK_DEFAULT = "file";

  /** With nnaudit.sink=log4j2: the log4j2 logger that receives each record. */
  public static final String LOG4J2_LOGGER_KEY = PREFIX + "log4j2.logger";
  public static final String LOG4J2_LOGGER_DEFAULT = "nnaudit.audit";

  /*
   * Shipping to Kafka (the nnaudit-kafka jar). Off unless the bootstrap servers or the topic is set; both are
   * then required.
   */

  /** Kafka brokers to ship the audit records to, host:port[,host:port...]; empty: no shipping. */
  public static final String KAFKA_BOOTSTRAP_SERVERS_KEY = PREFIX + "kafka.bootstrap.servers";
  public static final String KAFKA_BOOTSTRAP_SERVERS_DEFAULT = "";

  /** The topic the records go to; empty: no shipping. */
  public static final String KAFKA_TOPIC_KEY = PREFIX + "kafka.topic";
  public static final String KAFKA_TOPIC_DEFAULT = "";

  /**
   * Any Kafka producer property, passed through: {@code nnaudit.kafka.producer.linger.ms} sets the producer's
   * {@code linger.ms}. Those that decide delivery (acks, idempotence, retries, ordering) are checked.
   */
  public static final String KAFKA_PRODUCER_PREFIX = PREFIX + "kafka.producer.";

  /** Where the shipper records how far Kafka has acknowledged; empty: the audit file's path + .kafka-checkpoint. */
  public static final String KAFKA_CHECKPOINT_PATH_KEY = PREFIX + "kafka.checkpoint.path";
  public static final String KAFKA_CHECKPOINT_PATH_DEFAULT = "";

  /** How often the acknowledged position is written to the checkpoint, in milliseconds. */
  public static final String KAFKA_CHECKPOINT_INTERVAL_MS_KEY = PREFIX + "kafka.checkpoint.interval.ms";
  public static final long KAFKA_CHECKPOINT_INTERVAL_MS_DEFAULT = 1000L;

  /** Rotated files kept at most while they hold records not yet shipped (the spool's bound). */
  public static final String KAFKA_SPOOL_MAX_BACKUPS_KEY = PREFIX + "kafka.spool.max.backups";
  public static final int KAFKA_SPOOL_MAX_BACKUPS_DEFAULT = 100;

  /** The nameservice id in each record's identity; empty: dfs.nameservice.id, else the host name. */
  public static final String KAFKA_NAMESERVICE_ID_KEY = PREFIX + "kafka.nameservice.id";
  public static final String KAFKA_NAMESERVICE_ID_DEFAULT = "";

  /** The NameNode id in each record's identity; empty: dfs.ha.namenode.id, else the NameNode's RPC address. */
  public static final String KAFKA_NAMENODE_ID_KEY = PREFIX + "kafka.namenode.id";
  public static final String KAFKA_NAMENODE_ID_DEFAULT = "";

  /**
   * How each shipped record carries its identity: {@code named} (seven headers, {@code nnaudit.type} ...) or
   * {@code compact} (one header {@code nnaudit}, its fields in one text; the source is the key).
   */
  public static final String KAFKA_HEADERS_KEY = PREFIX + "kafka.headers";
  public static final String KAFKA_HEADERS_DEFAULT = "named";

  /**
   * The most audit lines one shipped record carries: 1, one line a record ({@code record}); more, the
   * consecutive whole lines read together, up to this many and 64 KiB (or the producer's batch.size less 4 KiB),
   * in one record ({@code records}).
   */
  public static final String KAFKA_RECORD_LINES_KEY = PREFIX + "kafka.record.lines";
  public static final int KAFKA_RECORD_LINES_DEFAULT = 1;

  /** When caught up, how often the shipper looks for new records, in milliseconds. */
  public static final String KAFKA_POLL_INTERVAL_MS_KEY = PREFIX + "kafka.poll.interval.ms";
  public static final long KAFKA_POLL_INTERVAL_MS_DEFAULT = 250L;

  /** After a failed send, the wait before the shipper resends from the last acknowledged record, in ms. */
  public static final String KAFKA_RETRY_BACKOFF_MS_KEY = PREFIX + "kafka.retry.backoff.ms";
  public static final long KAFKA_RETRY_BACKOFF_MS_DEFAULT = 1000L;

  /** At a stop, how long the shipper goes on shipping what the file holds before it stops, in ms. */
  public static final String KAFKA_STOP_TIMEOUT_MS_KEY = PREFIX + "kafka.stop.timeout.ms";
  public static final long KAFKA_STOP_TIMEOUT_MS_DEFAULT = 5000L;

  /**
   * Seal the audit file: a signed digest file beside each audit file ({@code <file>.seals}) whose seals chain
   * across rotations and restarts, checked by {@code nnaudit verify}. Needs {@code nnaudit.sink=file}.
   */
  public static final String SEAL_ENABLED_KEY = PREFIX + "seal.enabled";
  public static final boolean SEAL_ENABLED_DEFAULT = false;

  /** The keystore holding the sealing key: a private key (EC or RSA) with its certificate, or a secret key. */
  public static final String SEAL_KEYSTORE_PATH_KEY = PREFIX + "seal.keystore.path";
  public static final String SEAL_KEYSTORE_PATH_DEFAULT = "";

  /** The keystore's type, as Java's KeyStore names it: PKCS12, JKS or JCEKS. */
  public static final String SEAL_KEYSTORE_TYPE_KEY = PREFIX + "seal.keystore.type";
  public static final String SEAL_KEYSTORE_TYPE_DEFAULT = "PKCS12";

  /** The keystore's password, read through hadoop.security.credential.provider.path. */
  public static final String SEAL_KEYSTORE_PASSWORD_KEY = PREFIX + "seal.keystore.password";
  public static final String SEAL_KEYSTORE_PASSWORD_DEFAULT = "";

  /** The alias of the sealing key in the keystore. */
  public static final String SEAL_KEY_ALIAS_KEY = PREFIX + "seal.key.alias";
  public static final String SEAL_KEY_ALIAS_DEFAULT = "nnaudit-seal";

  /** The key's own password, read through the CredentialProvider; unset means the keystore's password. */
  public static final String SEAL_KEY_PASSWORD_KEY = PREFIX + "seal.key.password";
  public static final String SEAL_KEY_PASSWORD_DEFAULT = "";

  /** A seal is written once this many records are unsealed (and at every rotation and close). */
  public static final String SEAL_INTERVAL_RECORDS_KEY = PREFIX + "seal.interval.records";
  public static final long SEAL_INTERVAL_RECORDS_DEFAULT = 10_000L;

  /** A seal is written once the oldest unsealed record is this many milliseconds old. */
  public static final String SEAL_INTERVAL_MS_KEY = PREFIX + "seal.interval.ms";
  public static final long SEAL_INTERVAL_MS_DEFAULT = 10_000L;
}
