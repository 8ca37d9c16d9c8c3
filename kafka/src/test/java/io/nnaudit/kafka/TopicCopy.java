package io.nnaudit.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import java.util.function.UnaryOperator;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
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

  /**
   * Writes {@code records} to a new topic {@code to} of {@code partitions} partitions; then deletes those marked
   * {@link CopiedRecord#deletedFromStart} with Kafka's delete-records, as retention would.
   */
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
    long[] deleted = new long[partitions];
    long[] written = new long[partitions];
    for (CopiedRecord r : records) {
      if (r.deletedFromStart) {
        if (deleted[r.partition] != written[r.partition]) {
          throw new IllegalArgumentException("only a partition's first records can be deleted from its start");
        }
        deleted[r.partition]++;
      }
      written[r.partition]++;
    }
    for (int part = 0; part < partitions; part++) {
      if (deleted[part] > 0) {
        deleteBefore(broker, to, part, deleted[part]);
      }
    }
  }

  /** Deletes the records of {@code topic}'s {@code partition} before {@code offset}: its log start moves there. */
  static void deleteBefore(KafkaTestBroker broker, String topic, int partition, long offset) throws Exception {
    Properties p = new Properties();
    p.setProperty(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    try (Admin admin = Admin.create(p)) {
      admin.deleteRecords(Collections.singletonMap(new TopicPartition(topic, partition),
          RecordsToDelete.beforeOffset(offset))).all().get();
    }
  }

  /** Copies {@code from} to a new topic {@code to} through {@code change}. */
  static void copy(KafkaTestBroker broker, String from, String to, int partitions, int expected,
      UnaryOperator<List<CopiedRecord>> change) throws Exception {
    write(broker, to, partitions, change.apply(read(broker, from, expected)));
  }
}
