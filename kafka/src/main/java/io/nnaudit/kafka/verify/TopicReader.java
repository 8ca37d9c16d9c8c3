package io.nnaudit.kafka.verify;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Consumer;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads every partition of a topic, from its beginning (or from the first record at or after a time), up to the
 * end offsets taken when reading starts: what was in the topic then, however much is written meanwhile. Assigns
 * the partitions itself (no consumer group, no committed offsets). Hands each record on in the order of its
 * partition; partitions interleave as the consumer fetches them.
 */
final class TopicReader {
  /** What the read found about where each partition starts: records before it were deleted (retention). */
  final Map<Integer, Long> logStart = new HashMap<>();
  final Map<Integer, Long> endOffsets = new HashMap<>();
  /**
   * The offset of the first record read in each partition that had one: the partition's records sent before the
   * read's start (deleted from its start, or before --from) number no more than that.
   */
  final Map<Integer, Long> firstRead = new HashMap<>();
  /** The time the read began at (--from), or -1 for the partitions' beginnings. */
  long fromMillis = -1;
  long recordsRead;

  private final Properties config;
  private final String topic;
  private final Duration timeout;

  TopicReader(Properties config, String topic, Duration timeout) {
    this.config = new Properties();
    this.config.putAll(config);
    this.config.setProperty(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    this.config.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, "nnaudit-verify-stream");
    this.config.putIfAbsent(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(4 << 20));
    // Records deleted under the read (retention passing its position) must stop it, not send it to the end.
    this.config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
    this.topic = topic;
    this.timeout = timeout;
  }

  /**
   * Reads to the end offsets, handing each record to {@code each}; from {@code fromMillis} on when it is not
   * negative. Throws {@link IllegalStateException} saying why when the topic cannot be read to its end in time.
   */
  void read(long fromMillis, Consumer<ConsumerRecord<byte[], byte[]>> each) {
    this.fromMillis = fromMillis;
    try (KafkaConsumer<byte[], byte[]> consumer =
             new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<PartitionInfo> infos = consumer.partitionsFor(topic, timeout);
      if (infos == null || infos.isEmpty()) {
        throw new IllegalStateException("topic " + topic + " does not exist, or has no partitions");
      }
      List<TopicPartition> partitions = new ArrayList<>();
      for (PartitionInfo i : infos) {
        partitions.add(new TopicPartition(topic, i.partition()));
      }
      consumer.assign(partitions);
      Map<TopicPartition, Long> begin = consumer.beginningOffsets(partitions, timeout);
      Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, timeout);
      for (TopicPartition p : partitions) {
        logStart.put(p.partition(), begin.get(p));
        endOffsets.put(p.partition(), ends.get(p));
      }
      if (fromMillis < 0) {
        consumer.seekToBeginning(partitions);
      } else {
        Map<TopicPartition, Long> times = new HashMap<>();
        for (TopicPartition p : partitions) {
          times.put(p, fromMillis);
        }
        Map<TopicPartition, OffsetAndTimestamp> at = consumer.offsetsForTimes(times, timeout);
        for (TopicPartition p : partitions) {
          OffsetAndTimestamp o = at.get(p);
          consumer.seek(p, o == null ? ends.get(p) : o.offset());
        }
      }
      long deadline = System.nanoTime() + timeout.toNanos();
      Duration poll = Duration.ofMillis(200);
      while (!atEnd(consumer, partitions, ends)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("topic " + topic + " was not read to its end offsets " + ends + " within "
              + timeout.getSeconds() + " s (--timeout) of the last record read");
        }
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(poll)) {
          Long end = ends.get(new TopicPartition(r.topic(), r.partition()));
          if (r.offset() < end) {
            recordsRead++;
            firstRead.putIfAbsent(r.partition(), r.offset());
            each.accept(r);
            deadline = System.nanoTime() + timeout.toNanos();
          }
        }
        for (TopicPartition p : partitions) { // what was written after the read began is not read
          if (consumer.position(p) >= ends.get(p)) {
            consumer.pause(java.util.Collections.singleton(p));
          }
        }
      }
    }
  }

  private static boolean atEnd(KafkaConsumer<?, ?> consumer, List<TopicPartition> partitions,
      Map<TopicPartition, Long> ends) {
    for (TopicPartition p : partitions) {
      if (consumer.position(p) < ends.get(p)) {
        return false;
      }
    }
    return true;
  }
}
