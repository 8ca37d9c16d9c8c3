package io.nnaudit.kafka.verify;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Properties;

import org.apache.kafka.clients.consumer.ConsumerRecord;

/** One check of records made in memory, as verify-stream makes it: its exit code and its report. Immutable. */
final class StreamCheckRun {
  final int code;
  final String output;

  private StreamCheckRun(int code, String output) {
    this.code = code;
    this.output = output;
  }

  /**
   * Hands {@code records} to {@code c} in their order, as the topic's reader would, and reports; as many offsets
   * of each partition before its first record read as any record read first may need.
   */
  static StreamCheckRun of(StreamCheck c, List<ConsumerRecord<byte[], byte[]>> records) {
    return of(c, records, Long.MAX_VALUE);
  }

  /** As above, each partition's read having begun at offset {@code offsetsBefore} (its log start, or --from). */
  static StreamCheckRun of(StreamCheck c, List<ConsumerRecord<byte[], byte[]>> records, long offsetsBefore) {
    TopicReader reader = new TopicReader(new Properties(), "t", Duration.ofSeconds(1));
    for (ConsumerRecord<byte[], byte[]> r : records) {
      reader.recordsRead++;
      reader.firstRead.putIfAbsent(r.partition(), offsetsBefore);
      StreamRecord.read(r).forEach(c::accept);
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int code = c.report(new PrintStream(out, true, StandardCharsets.UTF_8), "t", reader);
    return new StreamCheckRun(code, out.toString(StandardCharsets.UTF_8));
  }
}
