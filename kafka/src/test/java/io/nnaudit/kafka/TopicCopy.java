package io.nnaudit.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.function.UnaryOperator;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Copies a topic to a new one through a change: every record read with its headers, the list changed by the
 * caller (records removed, changed, moved, added), and written to the same partitions, in the list's order, with
 * their timestamps. What someone with write access to the topic could make of it.
 */
final class TopicCopy {
  private TopicCopy() {
  }

  /** Every record of {@code topic}, in partition order, then offset order. */
  static List<CopiedRecord> read(KafkaTestBroker broker, String topic, int expected) {
    List<CopiedRecord> out = new ArrayList<>();
    for (ConsumerRecord<byte[], byte[]> r : broker.readAll(topic, expected, Duration.ofSeconds(60))) {
      out.add(new CopiedRecord(r));
    }
    return out;
  }

  /** Writes {@code records} to a new topic {@code to} of {@code partitions} partitions. */
  static void write(KafkaTestBroker broker, String to, int partitions, List<CopiedRecord> records)
      throws Exception {
    broker.createTopic(to, partitions);
    Properties p = new Properties();
    p.setProperty(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    p.setProperty(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
    p.setProperty(ProducerConfig.LINGER_MS_CONFIG, "5");
    try (KafkaProducer<byte[], byte[]> producer =
             new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
      for (CopiedRecord r : records) {
        producer.send(new ProducerRecord<>(to, r.partition, r.timestamp, r.key, r.value, r.headers));
      }
      producer.flush();
    }
  }

  /** Copies {@code from} to a new topic {@code to} through {@code change}. */
  static void copy(KafkaTestBroker broker, String from, String to, int partitions, int expected,
      UnaryOperator<List<CopiedRecord>> change) throws Exception {
    write(broker, to, partitions, change.apply(read(broker, from, expected)));
  }
}
