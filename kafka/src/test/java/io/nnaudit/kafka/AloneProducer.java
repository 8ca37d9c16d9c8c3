package io.nnaudit.kafka;

import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A producer alone with the shipper's settings, key and headers, for {@link ShipRate}'s limits: sends stock audit
 * lines as the shipper would (file 0, offsets as in a file of those lines) and counts their acknowledgements. One
 * thread sends; the producer's I/O thread counts.
 *
 * <p>The headers are the shipper's, in the form the settings name ({@code nnaudit.kafka.headers}); the system
 * property {@code shiprate.headers} sends others instead, to measure what headers cost the producer
 * (benchmarks/experiments/ship-headers): {@code three} (only type, file and offset, each its own named header) or
 * {@code none}.
 */
final class AloneProducer implements AutoCloseable {
  private static final String HEADERS = System.getProperty("shiprate.headers", "");
  private static final byte[] RECORD = ShipHeaders.bytes(ShipHeaders.RECORD);

  final ShipperSettings settings;
  final AtomicLong acked = new AtomicLong();
  final AtomicLong errors = new AtomicLong();
  private final String topic;
  private final byte[] key;
  /** Made once, as the shipper makes them: the floor is measured with the shipper's per-record header work. */
  private final ShipHeaders.Fixed fixedHeaders;
  private final KafkaProducer<byte[], byte[]> producer;
  private long seq;
  private long offset;

  /** Opens the producer and fetches the topic's metadata, so that a clock started after it times sends alone. */
  AloneProducer(ShipperSettings settings) {
    this.settings = settings;
    this.topic = settings.topic;
    this.key = ShipHeaders.bytes(settings.source);
    long started = System.currentTimeMillis();
    this.fixedHeaders = new ShipHeaders.Fixed(settings.source, started, "hdfs", settings.compactHeaders);
    this.producer = new KafkaProducer<>(settings.producer, new ByteArraySerializer(), new ByteArraySerializer());
    producer.partitionsFor(topic);
  }

  void send(byte[] line) {
    producer.send(new ProducerRecord<>(topic, null, null, key, line, headers(seq++, offset)), (md, e) -> {
          if (e == null) {
            acked.incrementAndGet();
          } else {
            errors.incrementAndGet();
          }
        });
    offset += line.length + 1;
  }

  /** The shipper's headers ({@code nnaudit.kafka.headers} of the settings), or those {@code shiprate.headers} names. */
  private RecordHeaders headers(long n, long at) {
    RecordHeaders h = new RecordHeaders();
    switch (HEADERS) {
      case "":
        return ShipHeaders.of(ShipHeaders.RECORD, fixedHeaders, n, 0, at, -1);
      case "three":
        h.add(ShipHeaders.TYPE, RECORD);
        h.add(ShipHeaders.FILE, ShipHeaders.decimal(0));
        h.add(ShipHeaders.OFFSET, ShipHeaders.decimal(at));
        return h;
      case "none":
        return h;
      default:
        throw new IllegalArgumentException("shiprate.headers: three or none, not " + HEADERS);
    }
  }

  void flush() {
    producer.flush();
  }

  @Override
  public void close() {
    producer.close();
  }
}
