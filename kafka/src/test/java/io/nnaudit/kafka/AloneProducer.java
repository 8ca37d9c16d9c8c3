package io.nnaudit.kafka;

import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A producer alone with the shipper's settings, key and headers, for {@link ShipRate}'s limits: sends stock audit
 * lines as the shipper would (file 0, offsets as in a file of those lines) and counts their acknowledgements. One
 * thread sends; the producer's I/O thread counts.
 */
final class AloneProducer implements AutoCloseable {
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
    this.fixedHeaders = new ShipHeaders.Fixed(settings.source, System.currentTimeMillis(), "hdfs");
    this.producer = new KafkaProducer<>(settings.producer, new ByteArraySerializer(), new ByteArraySerializer());
    producer.partitionsFor(topic);
  }

  void send(byte[] line) {
    producer.send(new ProducerRecord<>(topic, null, null, key, line,
        ShipHeaders.of(ShipHeaders.RECORD, fixedHeaders, seq++, 0, offset)), (md, e) -> {
          if (e == null) {
            acked.incrementAndGet();
          } else {
            errors.incrementAndGet();
          }
        });
    offset += line.length + 1;
  }

  void flush() {
    producer.flush();
  }

  @Override
  public void close() {
    producer.close();
  }
}
