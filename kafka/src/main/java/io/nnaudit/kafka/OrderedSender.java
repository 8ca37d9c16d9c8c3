package io.nnaudit.kafka;

import java.time.Duration;
import java.util.Map;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands the shipper's records to an idempotent producer, in order, each numbered by its seq ({@link ShipHeaders})
 * and followed by {@link Acknowledgements}; and at a rewind drops the producer and what it holds, so that the
 * records are sent again from the last acknowledged one.
 *
 * <p>Design note. What blocks: {@code send}, on the shipper's thread, for at most {@code max.block.ms}
 * (metadata, buffer space), and {@link #close}, for the time it is given plus the join of the producer's I/O
 * thread (see {@link Acknowledgements} on what that join guarantees). What drops: nothing. A send the producer
 * refuses at once (it then calls the callback inside {@code send}, on this thread, or throws) is counted as a
 * send error and reported as not sent: the caller tries again later from the same place. Who owns what: every
 * field is the shipper's thread's (checked by {@code assert} in {@link #send}, {@link #open} and
 * {@link #rewind}), but {@link #retries}, volatile, which the metrics read, and {@link #syncRefusal}, which the
 * callback writes when the producer runs it on the shipper's own thread inside {@code send}. Logs as
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
  /** The source, epoch and format headers of every record this sender sends. */
  private final ShipHeaders.Fixed fixedHeaders;

  private KafkaProducer<byte[], byte[]> producer;
  /** The seq of the next record sent: one more for each, never reset. */
  private long nextSeq;
  private Exception syncRefusal;
  private boolean lastSendRefused;
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
    this.fixedHeaders = new ShipHeaders.Fixed(settings.source, epoch, format);
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
      return true;
    } catch (RuntimeException e) {
      acks.countSendError();
      warnings.warn("could not create the Kafka producer", e);
      return false;
    }
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
    return ShipHeaders.of(type, fixedHeaders, nextSeq, file, offset);
  }

  /** An audit record (whole or cut) read at {@code from}, ending at {@code end}, {@code bytes} long. */
  boolean sendRecord(RecordHeaders h, byte[] value, ShipPosition from, ShipPosition end, long bytes) {
    return send(h, value, from, end, bytes, true, false, -1);
  }

  /** A gap record, sent while reading at {@code from}. */
  boolean sendGap(RecordHeaders h, byte[] value, ShipPosition from) {
    return send(h, value, from, from, 0, false, true, -1);
  }

  /** A seal ending at {@code sealAt} ({@link ShipPosition#global}), sent while reading at {@code from}. */
  boolean sendSeal(RecordHeaders h, byte[] value, ShipPosition from, long sealAt) {
    return send(h, value, from, from, 0, false, false, sealAt);
  }

  /** The end of the file {@code from} is in; {@code next}: the start of the next file. */
  boolean sendFileEnd(RecordHeaders h, ShipPosition from, ShipPosition next) {
    return send(h, new byte[0], from, next, 0, false, false, -1);
  }

  /**
   * Hands one record to the producer. False when the producer refused it at once: nothing was sent, and the
   * caller tries again later from the same place.
   */
  private boolean send(RecordHeaders headers, byte[] value, ShipPosition from, ShipPosition end, long bytes,
      boolean isRecord, boolean isGap, long sealAt) {
    assert Thread.currentThread() == owner;
    Acknowledgements.Sent sent = new Acknowledgements.Sent(acks.current(), nextSeq, from.global(), end, bytes,
        isRecord, isGap, sealAt);
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
    acks.handedOver(isRecord, bytes);
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
    try {
      for (Map.Entry<MetricName, ? extends Metric> e : p.metrics().entrySet()) {
        if ("record-retry-total".equals(e.getKey().name()) && "producer-metrics".equals(e.getKey().group())) {
          Object v = e.getValue().metricValue();
          return v instanceof Number ? ((Number) v).longValue() : 0;
        }
      }
    } catch (RuntimeException e) {
      LOG.debug("nnaudit: reading the producer's metrics failed", e);
    }
    return 0;
  }
}
