package io.nnaudit;

import org.apache.hadoop.metrics2.lib.MetricsRegistry;
import org.apache.hadoop.metrics2.lib.MutableQuantiles;
import org.apache.hadoop.metrics2.lib.MutableRate;
import org.apache.hadoop.metrics2.lib.MutableStat;

/**
 * What the writer measures: counts (written by one writing thread at a time, read by anyone) and, in a metrics2
 * registry, the batch-size and latency distributions that {@link NnauditMetricsSource} publishes. Latencies
 * are in microseconds: a write is far below a millisecond. Quantiles exist only when
 * {@code dfs.metrics.percentiles.intervals} is set, as for the NameNode's own metrics.
 */
final class WriterMetrics {
  final MetricsRegistry registry = new MetricsRegistry("NnauditWriter");
  private final MutableStat batchSize = registry.newStat("BatchSize", "Records per write call", "Ops",
      "Records");
  private final MutableRate writeMicros = registry.newRate("WriteMicros", "Latency of one write call, in µs");
  private final MutableRate fsyncMicros = registry.newRate("FsyncMicros", "Latency of one fsync, in µs");
  private final MutableQuantiles[] writeQuantiles;
  private final MutableQuantiles[] fsyncQuantiles;

  volatile long written;
  volatile long batches;
  volatile long writeFailed;
  /** Tickets aborted by the writer: operations answered with an error because their record is missing. */
  volatile long aborted;
  /** Under sync, records whose fsync failed and that were therefore never reported durable. */
  volatile long notDurable;
  volatile long sinkErrors;
  volatile long lastWriteMillis;
  /** The largest batch the writer has drained: the deepest the queue has been seen. */
  volatile int peakBatch;

  WriterMetrics(int[] percentileIntervals) {
    writeQuantiles = new MutableQuantiles[percentileIntervals.length];
    fsyncQuantiles = new MutableQuantiles[percentileIntervals.length];
    for (int i = 0; i < percentileIntervals.length; i++) {
      int s = percentileIntervals[i];
      writeQuantiles[i] = registry.newQuantiles("WriteMicros" + s + "s", "Write latency in µs", "Ops", "Micros",
          s);
      fsyncQuantiles[i] = registry.newQuantiles("FsyncMicros" + s + "s", "Fsync latency in µs", "Ops", "Micros",
          s);
    }
  }

  void recordsWritten(int n) {
    written += n;
    batches++;
    batchSize.add(n);
    lastWriteMillis = System.currentTimeMillis();
  }

  void batchDrained(int n) {
    if (n > peakBatch) {
      peakBatch = n;
    }
  }

  void writeFailed(int n) {
    writeFailed += n;
  }

  void aborted(int n) {
    aborted += n;
  }

  void notDurable(int n) {
    notDurable += n;
  }

  void sinkError() {
    sinkErrors++;
  }

  void writeLatency(long nanos) {
    long micros = nanos / 1000;
    writeMicros.add(micros);
    for (MutableQuantiles q : writeQuantiles) {
      q.add(micros);
    }
  }

  void fsyncLatency(long nanos) {
    long micros = nanos / 1000;
    fsyncMicros.add(micros);
    for (MutableQuantiles q : fsyncQuantiles) {
      q.add(micros);
    }
  }

}
