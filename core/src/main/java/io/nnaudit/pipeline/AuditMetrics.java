package io.nnaudit.pipeline;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import org.apache.hadoop.metrics2.lib.MetricsRegistry;
import org.apache.hadoop.metrics2.lib.MutableQuantiles;
import org.apache.hadoop.metrics2.lib.MutableRate;
import org.apache.hadoop.metrics2.lib.MutableStat;

/**
 * Everything one pipeline measures: every count, and the writer's batch-size and latency distributions. The
 * counts are read together as one {@link AuditStats} ({@link #snapshot}), which {@link AuditPipeline#stats},
 * the pipeline's log lines and {@link NnauditMetricsSource} use; the distributions are published from
 * {@link #registry}. Latencies are in microseconds: a write is far below a millisecond. Quantiles exist only
 * when {@code dfs.metrics.percentiles.intervals} is set, as for the NameNode's own metrics. Nothing here
 * blocks or takes a lock; any thread may read.
 */
final class AuditMetrics {
  /*
   * Who writes each count, which decides its type:
   * - handlers, concurrently: LongAdder, so that counting costs a handler no contended CAS;
   * - anyone (a handler refusing an event, the writing thread aborting tickets or giving events up): LongAdder,
   *   or AtomicLong for the drop total, whose exact value DropTracker's reports are made from;
   * - the writing thread, which is one thread at a time: the writer thread, or whoever holds the pipeline's
   *   write lock (a handler leading a write, a handler writing directly after the hand-over, the dying writer,
   *   the shutdown hook's last fsync). These are volatile so that anyone can read them, and "+=" on them is
   *   safe only because of that rule: a method marked "the writing thread" must never be called elsewhere.
   * A snapshot reads the fields one by one, so under load its counts may be a few events apart.
   */

  /** The metrics2 registry of the distributions below; {@link NnauditMetricsSource} publishes it. */
  final MetricsRegistry registry = new MetricsRegistry("NnauditWriter");
  // The distributions: metrics2 synchronizes each one; written by the writing thread.
  private final MutableStat batchSize = registry.newStat("BatchSize", "Records per write call", "Ops",
      "Records");
  private final MutableRate writeMicros = registry.newRate("WriteMicros", "Latency of one write call, in µs");
  private final MutableRate fsyncMicros = registry.newRate("FsyncMicros", "Latency of one fsync, in µs");
  private final MutableQuantiles[] writeQuantiles;
  private final MutableQuantiles[] fsyncQuantiles;

  /** Events the queue took. Handlers. */
  private final LongAdder accepted = new LongAdder();
  /** Under ack policy journal: events acknowledged once in the journal. Handlers. */
  private final LongAdder journaled = new LongAdder();
  /** Under ack policy journal: events the journal could not take, which waited for their writes. Handlers. */
  private final LongAdder journalWaits = new LongAdder();
  /** Events that could not be captured on the handler thread. Handlers. */
  private final LongAdder captureFailed = new LongAdder();
  /** Times a handler found the queue full under BLOCK and waited, counted as the wait begins. Handlers. */
  private final LongAdder blockedWaits = new LongAdder();
  /** Time those waits took. Handlers, as each wait ends. */
  private final LongAdder blockedWaitNanos = new LongAdder();
  /** Handlers in such a wait now: one up as a wait begins, one down as it ends. Handlers. */
  private final LongAdder handlersWaiting = new LongAdder();
  /** Records handlers wrote themselves after the hand-over (also in {@link #written}). Handlers, holding the lock. */
  private final LongAdder writtenDirect = new LongAdder();
  /** Operations answered with an error because their record is missing. Anyone. */
  private final LongAdder aborted = new LongAdder();
  /** Events dropped, at the queue or by the writer. Anyone, through {@link DropTracker} only. */
  private final AtomicLong dropped = new AtomicLong();
  /** Of {@link #dropped}, accepted events the writer gave up under fail-open. The writing thread. */
  private volatile long droppedAfterAcceptance;
  /** Records the sink wrote. The writing thread. */
  private volatile long written;
  /** Write calls that succeeded. The writing thread. */
  private volatile long batches;
  /** Events that could not be formatted or written. The writing thread. */
  private volatile long writeFailed;
  /** Under sync, records whose fsync failed and that were therefore never reported durable. The writing thread. */
  private volatile long notDurable;
  /** Write and fsync calls the sink failed. The writing thread. */
  private volatile long sinkErrors;
  /** When the last write succeeded (System.currentTimeMillis()), 0 before the first. The writing thread. */
  private volatile long lastWriteMillis;
  /** The most events the writer has taken from the queue for one batch. The writing thread. */
  private volatile int peakBatchSize;

  AuditMetrics(int[] percentileIntervals) {
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

  // Handlers.

  void countAccepted() {
    accepted.increment();
  }

  void countJournaled() {
    journaled.increment();
  }

  void countJournalWait() {
    journalWaits.increment();
  }

  void countCaptureFailure() {
    captureFailed.increment();
  }

  /** A handler found the queue full under BLOCK and begins to wait for room. */
  void blockedWaitBegins() {
    blockedWaits.increment();
    handlersWaiting.increment();
  }

  /** That wait ended, after {@code nanos}, with room, a refusal or a closed pipeline. */
  void blockedWaitEnded(long nanos) {
    blockedWaitNanos.add(nanos);
    handlersWaiting.decrement();
  }

  void countDirectWrite() {
    writtenDirect.increment();
  }

  // Anyone.

  void countAborted(int n) {
    aborted.add(n);
  }

  /** {@link DropTracker} only: the total its reports are made from. */
  void addDropped(long n) {
    dropped.addAndGet(n);
  }

  // The writing thread.

  void addDroppedAfterAcceptance(long n) {
    droppedAfterAcceptance += n;
  }

  /** One write call put {@code records} records into the sink. */
  void batchWritten(int records) {
    written += records;
    batches++;
    batchSize.add(records);
    lastWriteMillis = System.currentTimeMillis();
  }

  /** The writer took {@code n} events for one batch. */
  void batchDrained(int n) {
    if (n > peakBatchSize) {
      peakBatchSize = n;
    }
  }

  void countWriteFailed(int n) {
    writeFailed += n;
  }

  void countNotDurable(int n) {
    notDurable += n;
  }

  void countSinkError() {
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

  // Readers: any thread.

  long accepted() {
    return accepted.sum();
  }

  long written() {
    return written;
  }

  long writeFailed() {
    return writeFailed;
  }

  long dropped() {
    return dropped.get();
  }

  /**
   * What {@link AuditPipeline#awaitWritten} waits for to reach {@link #accepted}: the records written from the
   * queue (all written less those written directly), the failed events and those given up under fail-open.
   */
  long acceptedSettled() {
    return written - writtenDirect.sum() + writeFailed + droppedAfterAcceptance;
  }

  /** Every count, read now, in a builder to which the pipeline adds what it holds (the queue, the sink). */
  AuditStats.Builder snapshot() {
    AuditStats.Builder b = new AuditStats.Builder();
    b.handlersWaiting = (int) Math.max(0, handlersWaiting.sum());
    b.accepted = accepted.sum();
    b.captureFailed = captureFailed.sum();
    b.journaled = journaled.sum();
    b.journalWaits = journalWaits.sum();
    b.blockedWaits = blockedWaits.sum();
    b.blockedWaitMillis = blockedWaitNanos.sum() / 1_000_000;
    b.writtenDirect = writtenDirect.sum();
    b.aborted = aborted.sum();
    b.dropped = dropped.get();
    b.droppedAfterAcceptance = droppedAfterAcceptance;
    b.written = written;
    b.batches = batches;
    b.writeFailed = writeFailed;
    b.notDurable = notDurable;
    b.sinkErrors = sinkErrors;
    b.lastWriteMillis = lastWriteMillis;
    b.peakBatchSize = peakBatchSize;
    // accepted was read before what is settled: under load this may count a few too few, never below 0.
    b.unwritten = Math.max(0, b.accepted - acceptedSettled());
    return b;
  }
}
