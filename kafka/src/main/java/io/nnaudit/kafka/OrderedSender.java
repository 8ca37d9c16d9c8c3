package io.nnaudit.kafka;

import java.time.Duration;
import java.util.Map;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands the shipper's records to an idempotent producer, in order, each numbered by its seq ({@link ShipHeaders})
 * and followed by {@link Acknowledgements}; and at a rewind drops the producer and what it holds, so that the
 * records are sent again from the last acknowledged one.
 *
 * <p>Design note. What blocks: {@link #awaitTopic} and {@code send}, on the shipper's thread, each for at most
 * {@code max.block.ms} (metadata, buffer space), and {@link #close}, for the time it is given plus the join of the
 * producer's I/O thread (see {@link Acknowledgements} on what that join guarantees). What drops: nothing. A new
 * producer first waits for the topic's metadata ({@link #awaitTopic}, one try of {@code max.block.ms} at a send): no
 * record is handed to it before, and a send whose wait did not end in time reports that nothing was sent, so that the
 * caller tries again later from the same place, as after a refusal. A wait is not a failure: a broker still starting,
 * or a busy host, can take longer than one {@code max.block.ms}. It counts as a send error only once it has lasted
 * {@code metadataWaitMs} ({@link ShipperSettings}), each try from then on, with a WARN naming the cause (no broker
 * answers, or they answer without the topic); a refusal of the topic itself (not authorized, invalid) counts at once. A
 * send the producer refuses at once (it then calls the callback inside {@code send}, on this thread, or throws) is
 * counted as a send error and reported as not sent: the caller tries again later from the same place. A wait that
 * an interrupt from outside cut short (Kafka's {@code InterruptException}) is neither: nothing was sent, and the
 * caller clears the interrupt and tries again at its next pass, without the retry backoff. Who owns what:
 * every field is the shipper's thread's (checked by {@code assert} in {@link #send}, which makes the metadata wait,
 * {@link #open} and {@link #rewind}), but {@link #retries}, volatile, which the metrics read, and {@link #syncRefusal},
 * which the callback writes when the producer runs it on the shipper's own thread inside {@code send}. Logs as
 * {@link KafkaShipper}, the shipper's one logger name.
 */
final class OrderedSender {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaShipper.class);

  private final Thread owner;
  private final ShipperSettings settings;
  private final Acknowledgements acks;
  private final ShipWarnings warnings;
  private final long epoch = System.currentTimeMillis();
  private final byte[] key;
  /** What every record this sender sends carries alike: the form of its headers, its source, epoch and format. */
  private final ShipHeaders.Fixed fixedHeaders;

  private KafkaProducer<byte[], byte[]> producer;
  /** The seq of the next record sent: one more for each, never reset. */
  private long nextSeq;
  private Exception syncRefusal;
  private boolean lastSendRefused;
  /** Whether the open producer has had the topic's metadata: no record is handed to it before. */
  private boolean topicKnown;
  /**
   * When the open producer first tried to get the topic's metadata ({@code System.nanoTime()}, which no clock step
   * moves); {@link #NOT_TRIED} until its first try, so that an idle producer does not count its idle time.
   */
  private long waitingSinceNanos;
  private static final long NOT_TRIED = Long.MIN_VALUE;
  private long retriesOfClosedProducers;
  /** The producers' retries since start-up, as of the shipper's last look; read by the metrics. */
  private volatile long retries;

  OrderedSender(Thread owner, ShipperSettings settings, Acknowledgements acks, ShipWarnings warnings,
      String format) {
    this.owner = owner;
    this.settings = settings;
    this.acks = acks;
    this.warnings = warnings;
    this.key = ShipHeaders.bytes(settings.source);
    this.fixedHeaders = new ShipHeaders.Fixed(settings.source, epoch, format, settings.compactHeaders);
  }

  /** When this shipper started: the epoch of every record it sends. */
  long epoch() {
    return epoch;
  }

  /** The first generation: everything before {@code start} counts as acknowledged. */
  void begin(ShipPosition start) {
    acks.start(new Acknowledgements.Generation(nextSeq, start));
  }

  boolean isOpen() {
    return producer != null;
  }

  /** Opens a producer for the current generation; false (counted, warned) if the client library refused. */
  boolean open() {
    assert Thread.currentThread() == owner;
    try {
      producer = new KafkaProducer<>(settings.producer, new ByteArraySerializer(), new ByteArraySerializer());
      topicKnown = false;
      waitingSinceNanos = NOT_TRIED;
      return true;
    } catch (RuntimeException e) {
      acks.countSendError();
      warnings.warn("could not create the Kafka producer", e);
      return false;
    }
  }

  /**
   * Whether the open producer has the topic's metadata; if not, waits for it once, for at most
   * {@code max.block.ms}. A wait that has not lasted {@code metadataWaitMs} yet is no error (logged at DEBUG);
   * past that, each failed try is counted as a send error, a WARN (at most once a minute) says whether no
   * broker answers or the brokers answer without the topic, and the next try waits the retry backoff
   * ({@link #lastSendRefused}), as after a refused send. Any other failure of the wait (the topic not authorized
   * or invalid, a failed authentication of the client) is counted and warned at once, naming its cause, and the
   * next try waits the retry backoff too. The wait is timed from the first try on the monotonic clock.
   */
  private boolean awaitTopic() {
    if (topicKnown) {
      return true;
    }
    long tryStart = System.nanoTime();
    if (waitingSinceNanos == NOT_TRIED) {
      waitingSinceNanos = tryStart;
    }
    try {
      producer.partitionsFor(settings.topic);
    } catch (InterruptException e) { // an interrupt from outside cut the wait short: no error; the caller clears it
      return false;
    } catch (TimeoutException e) { // not in the metadata within max.block.ms: not yet, or not at all
      long now = System.nanoTime();
      long waited = (now - waitingSinceNanos) / 1_000_000;
      if (waited < settings.metadataWaitMs) {
        LOG.debug("nnaudit: waiting for the metadata of Kafka topic {} for {} ms: {}", settings.topic, waited,
            e.toString());
        return false;
      }
      acks.countSendError();
      lastSendRefused = true;
      warnings.warn(whyNoMetadata(waited, (now - tryStart) / 1_000_000), e);
      return false;
    } catch (RuntimeException e) { // not authorized, an invalid name, a failed authentication, the client failed
      acks.countSendError();
      lastSendRefused = true;
      warnings.warn("the metadata of topic " + settings.topic + " could not be had (" + e.getClass().getSimpleName()
          + ")", e);
      return false;
    }
    topicKnown = true;
    long waited = (System.nanoTime() - waitingSinceNanos) / 1_000_000;
    long maxBlock = Long.parseLong(settings.producer.getProperty("max.block.ms").trim());
    if (waited > maxBlock) {
      LOG.info("nnaudit: the metadata of Kafka topic {} came after {} ms; shipping begins", settings.topic, waited);
    }
    return true;
  }

  /**
   * Why the topic's metadata has not come for {@code waited} ms: a metadata response that came during the last
   * try, which lasted {@code lastTry} ms (the producer's {@code metadata-age}), means the brokers answer without
   * the topic; none since means that no broker answers now, whatever answered before.
   */
  private String whyNoMetadata(long waited, long lastTry) {
    double ageSeconds = producerMetric(producer, "metadata-age");
    if (ageSeconds >= 0 && ageSeconds * 1000 <= lastTry) {
      return "the brokers answer, but topic " + settings.topic + " is not in their metadata (missing, or not visible "
          + "to this client) after " + waited + " ms";
    }
    return "no broker at " + settings.bootstrapServers + " has answered for " + waited + " ms (unreachable, or not "
        + "up)";
  }

  /** Closes the producer, waiting up to {@code wait} for acknowledgements in flight. */
  void close(Duration wait) {
    KafkaProducer<byte[], byte[]> p = producer;
    producer = null;
    if (p != null) {
      retriesOfClosedProducers += producerRetries(p);
      try {
        p.close(wait);
      } catch (RuntimeException e) {
        LOG.debug("nnaudit: closing the Kafka producer failed", e);
      }
    }
  }

  /**
   * After a failed send: retires the current generation, drops its producer and what it holds, and starts the
   * next generation from what the old one reached. Returns the old one, settled: read it for what was refused.
   */
  Acknowledgements.Generation rewind() {
    assert Thread.currentThread() == owner;
    Acknowledgements.Generation old = acks.current();
    Acknowledgements.retire(old); // callbacks of the old producer are ignored from here on
    close(Duration.ZERO);
    acks.forgetInFlight();
    acks.start(new Acknowledgements.Generation(nextSeq, old.acknowledged()));
    return old;
  }

  /** The seq the next record will be sent with. */
  long nextSeq() {
    return nextSeq;
  }

  /** The headers of the next record: its type, and where it is ({@code file}, {@code offset}). */
  RecordHeaders headers(String type, long file, long offset) {
    return ShipHeaders.of(type, fixedHeaders, nextSeq, file, offset, -1);
  }

  /** The headers of the next record, a line cut from one of {@code length} bytes at {@code file}, {@code offset}. */
  RecordHeaders cutHeaders(long file, long offset, long length) {
    return ShipHeaders.of(ShipHeaders.RECORD_CUT, fixedHeaders, nextSeq, file, offset, length);
  }

  /**
   * A record of {@code lines} audit lines (one whole or cut, or several together) read at {@code from}, ending at
   * {@code end}, {@code bytes} long.
   */
  boolean sendRecord(RecordHeaders h, byte[] value, ShipPosition from, ShipPosition end, long bytes, int lines) {
    return send(h, value, from, end, bytes, lines, false, -1);
  }

  /** A gap record, sent while reading at {@code from}. */
  boolean sendGap(RecordHeaders h, byte[] value, ShipPosition from) {
    return send(h, value, from, from, 0, 0, true, -1);
  }

  /** A seal ending at {@code sealAt} ({@link ShipPosition#global}), sent while reading at {@code from}. */
  boolean sendSeal(RecordHeaders h, byte[] value, ShipPosition from, long sealAt) {
    return send(h, value, from, from, 0, 0, false, sealAt);
  }

  /** The end of the file {@code from} is in; {@code next}: the start of the next file. */
  boolean sendFileEnd(RecordHeaders h, ShipPosition from, ShipPosition next) {
    return send(h, new byte[0], from, next, 0, 0, false, -1);
  }

  /**
   * Hands one record to the producer, once the producer has the topic's metadata ({@link #awaitTopic}). False
   * when the metadata did not come in time or the producer refused the record at once: nothing was sent, and the
   * caller tries again later from the same place.
   */
  private boolean send(RecordHeaders headers, byte[] value, ShipPosition from, ShipPosition end, long bytes,
      int lines, boolean isGap, long sealAt) {
    assert Thread.currentThread() == owner;
    if (!awaitTopic()) {
      return false; // not sent; counted and warned only past the metadata wait's bound, or for a refused topic
    }
    Acknowledgements.Sent sent = new Acknowledgements.Sent(acks.current(), nextSeq, from.global(), end, bytes,
        lines, isGap, sealAt);
    syncRefusal = null;
    Exception refused;
    try {
      producer.send(new ProducerRecord<>(settings.topic, null, null, key, value, headers), (metadata, e) -> {
        if (e != null && Thread.currentThread() == owner) {
          syncRefusal = e; // refused inside send(): nothing was sent
        } else {
          acks.acknowledge(sent, e);
        }
      });
      refused = syncRefusal;
    } catch (InterruptException e) { // an interrupt from outside, in a wait for buffer space: nothing was sent, and
      return false; // it is no refusal (the caller clears the interrupt and tries again at its next pass)
    } catch (RuntimeException e) {
      refused = e;
    }
    if (refused != null) {
      acks.countSendError();
      lastSendRefused = true;
      warnings.warn("a send to topic " + settings.topic + " was refused", refused);
      return false;
    }
    nextSeq++;
    acks.handedOver(lines, bytes);
    return true;
  }

  /** Whether a send was refused at once since {@link #clearRefusal}: the next try waits the retry backoff. */
  boolean lastSendRefused() {
    return lastSendRefused;
  }

  void clearRefusal() {
    lastSendRefused = false;
  }

  /** Takes the producers' retry count for the metrics. */
  void refreshRetries() {
    KafkaProducer<byte[], byte[]> p = producer;
    retries = retriesOfClosedProducers + (p == null ? 0 : producerRetries(p));
  }

  long retries() {
    return retries;
  }

  private static long producerRetries(KafkaProducer<byte[], byte[]> p) {
    return (long) Math.max(0, producerMetric(p, "record-retry-total"));
  }

  /** One of the producer's own figures ({@code producer-metrics}), or -1 where it has none. */
  private static double producerMetric(KafkaProducer<byte[], byte[]> p, String name) {
    try {
      for (Map.Entry<MetricName, ? extends Metric> e : p.metrics().entrySet()) {
        if (name.equals(e.getKey().name()) && "producer-metrics".equals(e.getKey().group())) {
          Object v = e.getValue().metricValue();
          return v instanceof Number ? ((Number) v).doubleValue() : -1;
        }
      }
    } catch (RuntimeException e) {
      LOG.debug("nnaudit: reading the producer's metrics failed", e);
    }
    return -1;
  }
}
