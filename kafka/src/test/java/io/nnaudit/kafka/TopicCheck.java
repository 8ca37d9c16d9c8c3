package io.nnaudit.kafka;

import java.io.File;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The records check of the benchmark harnesses ({@code benchmarks/nn_compare.py}'s {@code nnaudit-kafka}): whether
 * a topic holds every line of one NameNode's local audit files, in order, as a consumer following docs/kafka.md
 * reads it ({@link TrailCheck}: duplicates dropped by identity, no hole, no line changed). Run after the
 * NameNode has stopped, when its shipper has shipped what it could.
 *
 * <pre>java -cp KAFKA_TEST_CLASSPATH io.nnaudit.kafka.TopicCheck BOOTSTRAP TOPIC AUDIT_FILE</pre>
 *
 * Prints one line, {@code TOPIC records=N duplicates=D local=M match=yes|no[ why=...]}, where N is the distinct
 * audit records in the topic and M the lines of the audit file and its backups; exit status 0 either way, 2 when
 * the topic cannot be read.
 */
public final class TopicCheck {
  private static final Duration TIMEOUT = Duration.ofSeconds(120);

  private TopicCheck() {
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: TopicCheck BOOTSTRAP TOPIC AUDIT_FILE");
      System.exit(2);
    }
    List<String> local = TrailCheck.localLines(new File(args[2]));
    List<ShippedRecord> shipped = ShippedRecord.of(readAll(args[0], args[1]));
    String source = shipped.isEmpty() ? "" : shipped.get(0).source;
    String why = null;
    TrailCheck trail = null;
    try {
      trail = TrailCheck.of(shipped, source);
      trail.assertLines(local, "topic " + args[1] + " against " + args[2]);
    } catch (AssertionError e) {
      why = String.valueOf(e.getMessage()).replaceAll("\\s+", "_");
    }
    System.out.println("TOPIC records=" + (trail == null ? -1 : trail.lines.size()) + " duplicates="
        + (trail == null ? -1 : trail.duplicates) + " local=" + local.size() + " match=" + (why == null ? "yes"
        : "no why=" + why));
  }

  /** Every record of the topic, all partitions from the beginning to their end offsets as of now. */
  static List<ConsumerRecord<byte[], byte[]>> readAll(String bootstrap, String topic) {
    Properties p = new Properties();
    p.setProperty(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.setProperty(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.setProperty(ConsumerConfig.CLIENT_ID_CONFIG, "nnaudit-topic-check");
    List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
             new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions = consumer.partitionsFor(topic, TIMEOUT).stream()
          .map(i -> new TopicPartition(i.topic(), i.partition()))
          .sorted((a, b) -> Integer.compare(a.partition(), b.partition()))
          .collect(Collectors.toList());
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, TIMEOUT);
      long deadline = System.nanoTime() + TIMEOUT.toNanos();
      while (!ends.entrySet().stream().allMatch(e -> consumer.position(e.getKey()) >= e.getValue())) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("topic " + topic + " not read to its end offsets " + ends + " in " + TIMEOUT);
        }
        consumer.poll(Duration.ofMillis(200)).forEach(records::add);
      }
    }
    records.sort((a, b) -> a.partition() != b.partition()
        ? Integer.compare(a.partition(), b.partition()) : Long.compare(a.offset(), b.offset()));
    return records;
  }
}
