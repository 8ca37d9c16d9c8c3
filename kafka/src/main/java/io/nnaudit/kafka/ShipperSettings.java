package io.nnaudit.kafka;

import static io.nnaudit.config.NnauditConfigKeys.*;

import java.io.File;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DFSUtil;
import org.apache.hadoop.hdfs.HAUtil;
import org.apache.kafka.clients.ClientDnsLookup;
import org.apache.kafka.clients.ClientUtils;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import io.nnaudit.config.ConfigError;
import io.nnaudit.config.ConfigValues;

/**
 * The shipper's settings, read and checked from the NameNode's configuration: the {@code nnaudit.kafka.*} keys
 * and the producer properties passed through with the {@code nnaudit.kafka.producer.} prefix. Every bad value
 * throws {@link IllegalArgumentException} naming the key, the value and what is allowed, so the NameNode fails
 * at start-up.
 *
 * <p>The producer is always idempotent with {@code acks=all}, unlimited retries within
 * {@code delivery.timeout.ms}, at most 5 requests in flight (the idempotent producer keeps order up to 5), and a
 * short {@code max.block.ms}: a passed-through value that would weaken this is refused, not ignored.
 * Passwords ({@code *.password}, {@code sasl.jaas.config}) are read through Hadoop's CredentialProvider
 * ({@code hadoop.security.credential.provider.path}), falling back to the configuration.
 */
final class ShipperSettings {
  /** Producer properties nnaudit sets itself: they decide what is lost, duplicated or reordered. */
  private static final Set<String> FIXED = new HashSet<>(Arrays.asList(ProducerConfig.ACKS_CONFIG,
      ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, ProducerConfig.RETRIES_CONFIG,
      ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
      ProducerConfig.TRANSACTIONAL_ID_CONFIG, ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
      ProducerConfig.PARTITIONER_CLASS_CONFIG));
  /**
   * The compression types the jar can produce: gzip is the JDK's, lz4 the pure-Java lz4-java bundled in it;
   * zstd and snappy need native libraries, which it does not bundle.
   */
  static final Set<String> COMPRESSION_TYPES = new HashSet<>(Arrays.asList("none", "gzip", "lz4"));
  /** The longest a new producer waits quietly for the topic's metadata; the delivery timeout if shorter. */
  static final long METADATA_WAIT_BOUND_MS = 30_000;

  final String topic;
  final String bootstrapServers;
  /** {@code <nameservice>/<namenode>}: the key of every record, and the source in its identity. */
  final String source;
  final File checkpoint;
  final long checkpointIntervalMs;
  final long pollIntervalMs;
  /** Whether records carry the compact header ({@code nnaudit.kafka.headers=compact}), not the seven named. */
  final boolean compactHeaders;
  /** The most audit lines one record carries ({@code nnaudit.kafka.record.lines}); 1: one line a record. */
  final int recordLines;
  /**
   * The most bytes of lines one {@code records} record holds: {@link ShipHeaders#MAX_TOGETHER_BYTES}, or the
   * producer's {@code batch.size} less 4 KiB (room for the key, the headers and the batch's own bytes) or the
   * largest value sent whole if smaller; so that such a record is never larger than a full batch of lines sent
   * alone, which the topic must take anyway (the producer does not split a batch below {@code batch.size}).
   */
  final int maxTogetherBytes;
  final long retryBackoffMs;
  /** The largest record value sent whole; a longer line is sent cut, marked as such. */
  final int maxValueBytes;
  /**
   * How long a new producer may wait for the topic's metadata before each further try counts as a send error:
   * {@link #METADATA_WAIT_BOUND_MS}, or {@code delivery.timeout.ms} if shorter (a record is given no longer).
   */
  final long metadataWaitMs;
  final Properties producer;

  private ShipperSettings(Configuration conf, File auditFile) {
    this.bootstrapServers = conf.getTrimmed(KAFKA_BOOTSTRAP_SERVERS_KEY, KAFKA_BOOTSTRAP_SERVERS_DEFAULT);
    this.topic = conf.getTrimmed(KAFKA_TOPIC_KEY, KAFKA_TOPIC_DEFAULT);
    if (!topic.matches("[a-zA-Z0-9._-]{1,249}")) {
      throw ConfigError.invalid(KAFKA_TOPIC_KEY, topic, "a Kafka topic name: 1 to 249 of a-z, A-Z, 0-9, '.', '_', '-'");
    }
    try {
      ClientUtils.parseAndValidateAddresses(Arrays.asList(bootstrapServers.split(",")),
          ClientDnsLookup.USE_ALL_DNS_IPS);
    } catch (ConfigException e) {
      throw ConfigError.invalid(KAFKA_BOOTSTRAP_SERVERS_KEY, bootstrapServers,
          "a comma-separated list of host:port of Kafka brokers whose host names resolve (" + e.getMessage() + ")", e);
    }
    this.source = nameserviceId(conf) + "/" + namenodeId(conf);
    String cp = conf.getTrimmed(KAFKA_CHECKPOINT_PATH_KEY, KAFKA_CHECKPOINT_PATH_DEFAULT);
    File checkpointFile = cp.isEmpty() ? new File(auditFile.getPath() + ".kafka-checkpoint") : new File(cp);
    if (!checkpointFile.isAbsolute()) {
      throw ConfigError.invalid(KAFKA_CHECKPOINT_PATH_KEY, cp, "an absolute path, or empty for the audit file's path "
          + "followed by .kafka-checkpoint");
    }
    this.checkpoint = checkpointFile;
    this.checkpointIntervalMs = longInRange(conf, KAFKA_CHECKPOINT_INTERVAL_MS_KEY,
        KAFKA_CHECKPOINT_INTERVAL_MS_DEFAULT, 10, 3_600_000L);
    this.pollIntervalMs = longInRange(conf, KAFKA_POLL_INTERVAL_MS_KEY, KAFKA_POLL_INTERVAL_MS_DEFAULT, 1, 60_000L);
    String headersRaw = conf.getTrimmed(KAFKA_HEADERS_KEY, KAFKA_HEADERS_DEFAULT);
    String headers = headersRaw.toLowerCase(Locale.ROOT);
    if (!headers.equals("named") && !headers.equals("compact")) {
      throw ConfigError.invalid(KAFKA_HEADERS_KEY, headersRaw, "named (seven headers nnaudit.*) or compact (one header "
          + "nnaudit)");
    }
    this.compactHeaders = headers.equals("compact");
    this.recordLines = (int) ConfigValues.longInRange(KAFKA_RECORD_LINES_KEY, conf.getTrimmed(KAFKA_RECORD_LINES_KEY),
        KAFKA_RECORD_LINES_DEFAULT, 1, ShipHeaders.MAX_RECORD_LINES, "audit lines per record");
    this.retryBackoffMs = longInRange(conf, KAFKA_RETRY_BACKOFF_MS_KEY, KAFKA_RETRY_BACKOFF_MS_DEFAULT, 1, 600_000L);
    this.producer = producerProperties(conf);
    int maxRequest = Integer.parseInt(producer.getProperty(ProducerConfig.MAX_REQUEST_SIZE_CONFIG));
    this.maxValueBytes = Math.max(1024, maxRequest - 4096); // room for the key, headers and batch overhead
    this.maxTogetherBytes = Math.min(ShipHeaders.MAX_TOGETHER_BYTES, Math.min(maxValueBytes,
        Integer.parseInt(producer.getProperty(ProducerConfig.BATCH_SIZE_CONFIG).trim()) - 4096));
    this.metadataWaitMs = Math.min(METADATA_WAIT_BOUND_MS,
        Long.parseLong(producer.getProperty(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG).trim()));
  }

  /** Reads and checks every shipping setting; the audit file names the default checkpoint. */
  static ShipperSettings fromConf(Configuration conf, File auditFile) {
    return new ShipperSettings(conf, auditFile);
  }

  private Properties producerProperties(Configuration conf) {
    Properties p = new Properties();
    // Defaults, each of which a passed-through property may change (within the checks below).
    p.setProperty(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "5");
    p.setProperty(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
    p.setProperty(ProducerConfig.MAX_BLOCK_MS_CONFIG, "2000");
    p.setProperty(ProducerConfig.LINGER_MS_CONFIG, "20");
    p.setProperty(ProducerConfig.BATCH_SIZE_CONFIG, "262144");
    p.setProperty(ProducerConfig.COMPRESSION_TYPE_CONFIG, "none");
    p.setProperty(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, "1048576");
    p.setProperty(ProducerConfig.CLIENT_ID_CONFIG, "nnaudit-" + source.replace('/', '-'));
    // The client's metrics pushed to the broker (KIP-714): nothing in the NameNode reads them, and with it on the
    // producer's I/O thread prepares a telemetry update at every poll, a few per cent of its CPU here.
    p.setProperty(ProducerConfig.ENABLE_METRICS_PUSH_CONFIG, "false");
    Set<String> known = ProducerConfig.configNames();
    Map<String, String> given = new TreeMap<>(conf.getPropsWithPrefix(KAFKA_PRODUCER_PREFIX));
    for (Map.Entry<String, String> e : given.entrySet()) {
      String name = e.getKey();
      String key = KAFKA_PRODUCER_PREFIX + name;
      String value = e.getValue() == null ? "" : e.getValue().trim();
      if (FIXED.contains(name)) {
        throw ConfigError.invalid(key, value, "not set: nnaudit sets " + name + " itself (idempotent, acks=all, "
            + "unlimited retries within delivery.timeout.ms, byte keys and values, the servers of "
            + KAFKA_BOOTSTRAP_SERVERS_KEY + ")");
      }
      if (!known.contains(name)) {
        throw ConfigError.invalid(key, value, "the name of a Kafka producer property (" + KAFKA_PRODUCER_PREFIX
            + "<property>)");
      }
      if (isSecret(name)) {
        value = password(conf, key, value);
      }
      p.setProperty(name, value);
    }
    p.setProperty(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    p.setProperty(ProducerConfig.ACKS_CONFIG, "all");
    p.setProperty(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.setProperty(ProducerConfig.RETRIES_CONFIG, Integer.toString(Integer.MAX_VALUE));
    p.setProperty(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.setProperty(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    check(p, ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1, 5,
        "1 to 5: the idempotent producer keeps records in order with at most 5 requests in flight");
    check(p, ProducerConfig.MAX_BLOCK_MS_CONFIG, 0, 60_000, "0 to 60000 ms: how long a send may wait for metadata "
        + "or buffer space on the shipper's thread; keep it short so that a stop is not held up");
    check(p, ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 1, 86_400_000, "1 to 86400000 ms; a record not acknowledged "
        + "by then is sent again from the last acknowledged record");
    check(p, ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 8192, Integer.MAX_VALUE, "at least 8192 bytes");
    String compression = p.getProperty(ProducerConfig.COMPRESSION_TYPE_CONFIG).toLowerCase(Locale.ROOT);
    if (!COMPRESSION_TYPES.contains(compression)) {
      throw ConfigError.invalid(KAFKA_PRODUCER_PREFIX + ProducerConfig.COMPRESSION_TYPE_CONFIG, compression,
          "none, gzip or lz4 (nnaudit-kafka bundles no native compression library, so not zstd or snappy)");
    }
    try {
      new ProducerConfig(p); // types and ranges of every property, as the producer will check them
    } catch (ConfigException e) {
      throw ConfigError.invalid(KAFKA_PRODUCER_PREFIX + "*", e.getMessage(), "values the Kafka producer accepts", e);
    }
    return p;
  }

  private static void check(Properties p, String name, long min, long max, String allowed) {
    String v = p.getProperty(name);
    long n;
    try {
      n = Long.parseLong(v.trim());
    } catch (NumberFormatException e) {
      throw ConfigError.invalid(KAFKA_PRODUCER_PREFIX + name, v, allowed, e);
    }
    if (n < min || n > max) {
      throw ConfigError.invalid(KAFKA_PRODUCER_PREFIX + name, v, allowed);
    }
  }

  private static boolean isSecret(String name) {
    return name.endsWith(".password") || name.equals("sasl.jaas.config");
  }

  /** A secret from the CredentialProvider (the full nnaudit key is its alias), else the configuration. */
  private static String password(Configuration conf, String key, String fallback) {
    char[] pw = ConfigValues.password(conf, key);
    return pw == null ? fallback : new String(pw);
  }

  private static long longInRange(Configuration conf, String key, long dflt, long min, long max) {
    return ConfigValues.longInRange(key, conf.getTrimmed(key), dflt, min, max, "milliseconds");
  }

  private static String nameserviceId(Configuration conf) {
    String id = conf.getTrimmed(KAFKA_NAMESERVICE_ID_KEY, "");
    if (id.isEmpty()) {
      id = quietly(() -> DFSUtil.getNamenodeNameServiceId(conf));
    }
    return id == null || id.isEmpty() ? hostName() : id;
  }

  private static String namenodeId(Configuration conf) {
    String id = conf.getTrimmed(KAFKA_NAMENODE_ID_KEY, "");
    if (id.isEmpty()) {
      id = quietly(() -> HAUtil.getNameNodeId(conf, DFSUtil.getNamenodeNameServiceId(conf)));
    }
    if (id == null || id.isEmpty()) {
      id = conf.getTrimmed(DFSConfigKeys.DFS_NAMENODE_RPC_ADDRESS_KEY, "");
    }
    return id.isEmpty() ? hostName() : id;
  }

  /** Hadoop's own resolution, or null where it cannot tell (it throws when the addresses are ambiguous). */
  private static String quietly(java.util.function.Supplier<String> lookup) {
    try {
      return lookup.get();
    } catch (RuntimeException e) {
      return null;
    }
  }

  private static String hostName() {
    try {
      return InetAddress.getLocalHost().getCanonicalHostName();
    } catch (UnknownHostException e) {
      return "localhost";
    }
  }
}
