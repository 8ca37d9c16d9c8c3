package io.nnaudit.kafka;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The test broker is a real one: records keep their keys, values and headers; a stopped broker makes a send
 * fail within the producer's bounds; a broker restarted after a clean stop or a kill -9 comes back at the same
 * address with its records, and the producer that saw it go away sends again.
 */
class KafkaTestBrokerTest {

  private static final int RECORDS = 200;
  /** The producer gives up on a record after this long: short, so that an outage shows quickly. */
  private static final int DELIVERY_TIMEOUT_MS = 3000;

  @TempDir
  Path dir;

  @Test
  void recordsSurviveAStopAndARestartAtTheSameAddress() throws Exception {
    try (KafkaTestBroker broker = new KafkaTestBroker(dir.resolve("broker")).start()) {
      System.out.println("broker ready in " + broker.lastStartTime().toMillis() + " ms");
      broker.createTopic("audit", 3);

      try (KafkaProducer<byte[], byte[]> producer = producer(broker)) {
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++) {
          acks.add(producer.send(record("audit", i)));
        }
        for (Future<RecordMetadata> ack : acks) {
          assertTrue(ack.get(30, TimeUnit.SECONDS).hasOffset());
        }
        assertRecords(broker.readAll("audit", RECORDS, Duration.ofSeconds(30)), RECORDS);

        // No topic is made on the fly: a missing topic is an error, as on a production cluster.
        ExecutionException missing = assertThrows(ExecutionException.class,
            () -> producer.send(record("no-such-topic", 0)).get(30, TimeUnit.SECONDS));
        assertInstanceOf(TimeoutException.class, missing.getCause());
        assertTrue(missing.getCause().getMessage().contains("not present in metadata"),
            missing.getCause().getMessage());

        broker.stop();
        assertFalse(broker.isRunning());
        long t0 = System.nanoTime();
        ExecutionException down = assertThrows(ExecutionException.class,
            () -> producer.send(record("audit", RECORDS)).get(30, TimeUnit.SECONDS));
        long failedAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertInstanceOf(TimeoutException.class, down.getCause());
        assertTrue(failedAfterMs < DELIVERY_TIMEOUT_MS + 5000, "the send failed after " + failedAfterMs + " ms");

        broker.start();
        System.out.println("broker restarted in " + broker.lastStartTime().toMillis() + " ms");
        // The same producer, on the same bootstrap address, sends again.
        assertTrue(producer.send(record("audit", RECORDS + 1)).get(30, TimeUnit.SECONDS).hasOffset());
      }

      List<ConsumerRecord<byte[], byte[]>> after = broker.readAll("audit", RECORDS + 1, Duration.ofSeconds(30));
      assertEquals(RECORDS + 1, after.size(), "the old records and the new one; the timed-out one never landed");
      after.sort(Comparator.comparingInt(KafkaTestBrokerTest::seq));
      assertRecords(after.subList(0, RECORDS), RECORDS);
      assertEquals(RECORDS + 1, seq(after.get(RECORDS)));
    }
  }

  @Test
  void acknowledgedRecordsSurviveAKillAndAPausedBrokerResumes() throws Exception {
    try (KafkaTestBroker broker = new KafkaTestBroker(dir.resolve("broker")).start()) {
      broker.createTopic("audit", 1);
      try (KafkaProducer<byte[], byte[]> producer = producer(broker)) {
        for (int i = 0; i < RECORDS; i++) {
          producer.send(record("audit", i));
        }
        producer.flush();

        broker.kill();
        broker.start();
        System.out.println("broker restarted after kill -9 in " + broker.lastStartTime().toMillis() + " ms");
        assertRecords(broker.readAll("audit", RECORDS, Duration.ofSeconds(30)), RECORDS);

        broker.pause();
        ExecutionException hung = assertThrows(ExecutionException.class,
            () -> producer.send(record("audit", RECORDS)).get(30, TimeUnit.SECONDS));
        assertInstanceOf(TimeoutException.class, hung.getCause());
        broker.resume();
        assertTrue(producer.send(record("audit", RECORDS + 1)).get(30, TimeUnit.SECONDS).hasOffset());
      }
      List<ConsumerRecord<byte[], byte[]>> all = broker.readAll("audit", RECORDS + 1, Duration.ofSeconds(30));
      // The record sent to the paused broker may or may not have landed (the producer timed out waiting for
      // the answer, not for the write): the ones acknowledged must be there.
      assertTrue(all.size() == RECORDS + 1 || all.size() == RECORDS + 2, "read " + all.size());
      assertRecords(all.subList(0, RECORDS), RECORDS);
      assertEquals(RECORDS + 1, seq(all.get(all.size() - 1)));
    }
  }

  @Test
  void aMissingClasspathSaysHowToBuildTheBroker() {
    String saved = System.getProperty(KafkaTestBroker.CLASSPATH_PROPERTY);
    System.setProperty(KafkaTestBroker.CLASSPATH_PROPERTY, dir.resolve("nothing-here").toString());
    try {
      IllegalStateException e = assertThrows(IllegalStateException.class,
          () -> new KafkaTestBroker(dir.resolve("broker")).start());
      assertTrue(e.getMessage().contains("mvn -B -f kafka/test-broker/pom.xml package"), e.getMessage());
    } finally {
      System.setProperty(KafkaTestBroker.CLASSPATH_PROPERTY, saved);
    }
  }

  private static KafkaProducer<byte[], byte[]> producer(KafkaTestBroker broker) {
    Properties p = new Properties();
    p.setProperty(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    p.setProperty(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.setProperty(ProducerConfig.ACKS_CONFIG, "all");
    p.setProperty(ProducerConfig.LINGER_MS_CONFIG, "0");
    p.setProperty(ProducerConfig.MAX_BLOCK_MS_CONFIG, "2000");
    p.setProperty(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "1000");
    p.setProperty(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, String.valueOf(DELIVERY_TIMEOUT_MS));
    p.setProperty(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, "100");
    p.setProperty(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "500");
    return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
  }

  private static ProducerRecord<byte[], byte[]> record(String topic, int seq) {
    ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, bytes("key-" + seq), bytes("value-" + seq));
    r.headers().add("seq", bytes(String.valueOf(seq)));
    r.headers().add("source", bytes("nn1"));
    return r;
  }

  /** Exactly the records 0..n-1, in any order across partitions, with their keys, values and headers. */
  private static void assertRecords(List<ConsumerRecord<byte[], byte[]>> read, int n) {
    assertEquals(n, read.size());
    List<ConsumerRecord<byte[], byte[]>> sorted = new ArrayList<>(read);
    sorted.sort(Comparator.comparingInt(KafkaTestBrokerTest::seq));
    for (int i = 0; i < n; i++) {
      ConsumerRecord<byte[], byte[]> r = sorted.get(i);
      assertEquals(i, seq(r));
      assertArrayEquals(bytes("key-" + i), r.key());
      assertArrayEquals(bytes("value-" + i), r.value());
      Header source = r.headers().lastHeader("source");
      assertNotNull(source);
      assertArrayEquals(bytes("nn1"), source.value());
      assertEquals(2, r.headers().toArray().length);
    }
  }

  private static int seq(ConsumerRecord<byte[], byte[]> r) {
    return Integer.parseInt(new String(r.headers().lastHeader("seq").value(), StandardCharsets.UTF_8));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
