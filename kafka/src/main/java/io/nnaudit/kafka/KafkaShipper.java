package io.nnaudit.kafka;

import java.io.File;
import java.io.IOException;
import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.ship.ShipStats;
import io.nnaudit.ship.Shipper;
import io.nnaudit.ship.ShipperContext;
import io.nnaudit.ship.SpoolGuard;

/**
 * Ships the local audit file to Kafka: one thread in the NameNode reads the records the pipeline has written
 * (the live file, and rotated files it has not finished, oldest first) and sends each, as written, with an
 * idempotent producer ({@code acks=all}, ordered, unlimited retries within {@code delivery.timeout.ms}). Every
 * record of one NameNode has the same key, so they stay in order in one partition, and carries its identity in
 * its headers ({@link ShipHeaders}). This class is the thread and its start-up; the work is done by its parts,
 * as a tailing shipper splits it:
 * <ul>
 * <li>{@link TrailReader}: following the files by identity, reading and cutting lines;</li>
 * <li>{@link OrderedSender} and {@link Acknowledgements}: ordered send, acknowledgement, rewind;</li>
 * <li>{@link GapLedger}: the gap records owed to the stream;</li>
 * <li>{@link SealForwarder}: the seals of the digests, after the records they cover;</li>
 * <li>{@link Checkpointer} and {@link FileNumbers}: the checkpoint, the guard's hold, the numbering of files;</li>
 * <li>{@link ShipLag}: the lag the metrics show; {@link SpoolDirectory}: the listing of the files.</li>
 * </ul>
 *
 * <p>Design note.
 * <ul>
 * <li>What blocks: only this shipper's own thread, on the disk, in the wait for the topic's metadata and in
 * {@code send} (each at most {@code max.block.ms}, for metadata or buffer space). No handler and no writer ever
 * waits for it: the file is the spool, so an outage, a slow broker or a missing topic only makes the lag grow.
 * Each pass of its loop sends at most one buffer of lines and stops early once a send failed or the stop's time
 * is up, so a stop is bounded by the time given plus one {@code max.block.ms}. A pass that found nothing new, or
 * read the live file to its end, is followed by a wait of {@code nnaudit.kafka.poll.interval.ms} (10 ms while
 * stopping), which a stop cuts short: caught up, the shipper reads bursts of lines rather than chasing each write,
 * whose reads and producer batches of a few records would cost the NameNode's CPU.</li>
 * <li>Cold start: a new producer (at the start, and after each rewind) is sent nothing until it has the topic's
 * metadata. The wait is made by the first send of a pass, and one that does not end in time is a send not made,
 * as a refused one: the reader still follows the files (a file rotation deleted is passed over and announced),
 * the checkpoint is written and a stop is seen meanwhile. It is no error until it has lasted
 * {@code metadataWaitMs} from its first try (30 s, or the delivery timeout if shorter; see {@link OrderedSender}):
 * a broker still starting or a busy host is not a fault. Past that, each try waits the retry backoff, as after a
 * refusal.</li>
 * <li>What drops: nothing silently. A send the producer refuses at once leaves the position where it was and is
 * tried again after {@code nnaudit.kafka.retry.backoff.ms}. A send that fails later (the delivery timeout
 * passed, an authorization error) makes the thread rewind: close the producer, go back to the last acknowledged
 * record, and send again from there; records after it may reach Kafka twice, with the same identity. What
 * cannot be shipped as written is announced by a gap record (see {@link TrailReader}, {@link SealForwarder}).</li>
 * <li>Stop ({@link #stop}), once the pipeline has closed the file (its last seal written; at a SIGTERM, in the
 * last shutdown hook): the thread ships what the files hold until it is caught up (the live file read to its
 * end, its seals sent, every record sent acknowledged, the seals too) or the time given has passed, closes the
 * producer (caught up, it has nothing in flight; out of time, it is given none to wait), writes the checkpoint and
 * ends. One shipper per
 * checkpoint at a time in a JVM: a replacement waits for the one before it to end. No interrupt ends the
 * thread: nothing in nnaudit interrupts it, and one from elsewhere is cleared before and after each pass, in each
 * pause, while waiting for the shipper before it, at the start and in the finish, and warned about at most once a
 * minute ({@link StopSignal#clearStrayInterrupt}). The audit files, the checkpoint and the files' heads are
 * read and written through streams and {@code RandomAccessFile}, which no interrupt closes. A digest is read
 * through a channel opened without following links, which one closes: the same digest is opened again and the
 * look or read made again, up to three tries ({@link DigestFollower}). What one still costs: when the digest is
 * not found again as it was or the tries fail, the files opened again at once, and the current file's seals sent
 * again (the same identities); passes failed so in a row wait the retry backoff from the second on, so that a
 * storm of interrupts cannot keep the shipper reopening files and resending seals; a rotated file deleted
 * meanwhile is then announced as a gap from where reading stopped. Inside a send or a wait for the topic's
 * metadata that had to block: a send not made, tried again after the poll interval. Inside the finish's close:
 * only the Kafka client's ERROR "Interrupted while joining ioThread", since a stop closes the producer with
 * nothing in flight (or, out of time, without waiting).</li>
 * <li>Who owns what: the parts are the shipper's thread's (each says so in its note; the sender, the reader,
 * the gap ledger and the checkpointer assert it at their entry points); what the producer's I/O thread writes is
 * in {@link Acknowledgements}. Here, {@link #startCheckpoint}
 * is written by the constructing thread before the thread starts (Thread.start publishes it), then read on the
 * thread; {@link #begun} is written by the thread, volatile, read by the metrics; {@link #stop} is written by
 * the stopping thread. {@link #stats} runs on the metrics thread and reads only volatile and atomic state and a
 * listing of its own.</li>
 * </ul>
 */
public final class KafkaShipper implements Shipper {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaShipper.class);
  /** The shipper thread's name, before the audit file's name in brackets. */
  static final String THREAD_NAME_PREFIX = "nnaudit-kafka-shipper";
  private static final long OBSERVE_INTERVAL_MS = 250;
  /** The checkpoints a shipper of this JVM works on: a replacement waits for the shipper before it to end. */
  private static final Map<String, Thread> ACTIVE = new ConcurrentHashMap<>();

  private final ShipperSettings settings;
  private final ShipperContext context;
  private final SpoolDirectory dir;
  private final SpoolGuard guard;
  private final Thread thread;
  private final StopSignal stop = new StopSignal();
  private final Acknowledgements acks = new Acknowledgements();
  private final ShipWarnings warnings;
  private final OrderedSender sender;
  private final GapLedger gaps;
  private final FileNumbers numbers = new FileNumbers();
  private final Checkpointer checkpointer;
  private final SealForwarder seals;
  private final TrailReader reader;
  private final ShipLag lag = new ShipLag();
  /** The checkpoint read at start-up (null: none); read on the thread, after the shipper before this one ended. */
  private final ShipCheckpoint startCheckpoint;
  /** Set once the shipper's thread knows where it starts: the lag can be computed from then on. */
  private volatile boolean begun;

  /**
   * Checks the settings and reads the checkpoint (it is read again on the thread if a shipper before this one
   * was still stopping); does not start. Until the thread knows where it starts, the guard holds every file.
   */
  public KafkaShipper(ShipperContext context) {
    this.context = context;
    this.settings = ShipperSettings.fromConf(context.conf(), context.file());
    this.guard = context.spoolGuard();
    this.dir = new SpoolDirectory(context.file().toPath(), context.datedNames(), context.maxBackups(), guard);
    boolean sealing = context.conf().getBoolean(NnauditConfigKeys.SEAL_ENABLED_KEY,
        NnauditConfigKeys.SEAL_ENABLED_DEFAULT);
    try {
      this.startCheckpoint = ShipCheckpoint.load(settings.checkpoint);
    } catch (IOException e) {
      throw new IllegalStateException("nnaudit: cannot start shipping " + context.file() + " to Kafka: " + e, e);
    }
    guard.holdEveryFile();
    this.thread = new Thread(this::run, THREAD_NAME_PREFIX + "[" + context.file().getName() + "]");
    thread.setDaemon(true);
    File file = context.file();
    this.warnings = new ShipWarnings(file, settings.topic, acks);
    this.sender = new OrderedSender(thread, settings, acks, warnings, context.recordFormat());
    this.gaps = new GapLedger(thread, file, this::gapNoted);
    this.checkpointer = new Checkpointer(thread, settings, dir, guard, numbers, gaps, acks, warnings, stop);
    this.seals = new SealForwarder(file, dir, sealing, sender, acks, gaps, stop);
    this.reader = new TrailReader(thread, file, settings.maxValueBytes, new LinesTogether(settings.recordLines,
        settings.maxTogetherBytes), dir, guard, sender, acks, seals, gaps, numbers, checkpointer, stop);
  }

  /**
   * Checks every shipping setting of {@code conf} without connecting to anything; throws
   * {@link IllegalArgumentException} naming the key, the value and what is allowed.
   */
  public static void validate(Configuration conf) {
    ShipperSettings.fromConf(conf, new File("/nnaudit-audit.log"));
  }

  @Override
  public void start() {
    thread.start();
  }

  @Override
  public void stop(long timeoutMs) {
    stop.request(timeoutMs);
    if (!thread.isAlive()) {
      return;
    }
    LockSupport.unpark(thread);
    try {
      thread.join(stopBoundMs(timeoutMs));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (thread.isAlive()) {
      LOG.warn("nnaudit: the Kafka shipper of {} did not stop in time; it goes on until it can", context.file());
    }
  }

  /** The time given, a send blocked for max.block.ms, and two seconds for the producer's close. */
  @Override
  public long stopBoundMs(long timeoutMs) {
    return timeoutMs + Long.parseLong(settings.producer.getProperty("max.block.ms")) + 2000;
  }

  /**
   * The figures now, from any thread. The lag in bytes and files is computed from a look at the files made by
   * this call (a few lstat calls), so that it is current even while the shipper's thread is held in a send.
   */
  @Override
  public ShipStats stats() {
    long last = acks.lastAckMillis();
    long now = System.currentTimeMillis();
    long[] waiting = {-1, -1};
    if (begun) {
      try {
        waiting = ShipLag.of(dir.list(), acks.acknowledged());
      } catch (IOException e) {
        LOG.debug("nnaudit: looking at the spool for the metrics failed", e);
      }
    }
    return new ShipStats(acks.shippedRecords(), acks.shippedBytes(), ShipLag.records(waiting[0], acks,
        gaps.waiting()), waiting[0], lag.ageMillis(waiting[0], now), acks.sendErrors(), sender.retries(),
        last == 0 ? -1 : now - last, waiting[1], guard.lostFiles() + gaps.lostElsewhere(), guard.lostBytes());
  }

  /** The shipper's thread (for tests). */
  Thread thread() {
    return thread;
  }

  /** The interrupts from outside its thread cleared (for tests, once the thread has ended). */
  long strayInterrupts() {
    return stop.strayInterrupts();
  }

  // ---------------------------------------------------------------- the shipper's thread

  private void run() {
    String checkpointName = settings.checkpoint.getAbsolutePath();
    try {
      Boolean waited = awaitPredecessor(checkpointName);
      if (waited == null) {
        return; // stopped before it began
      }
      try {
        stop.clearStrayInterrupt();
        begin(waited);
      } catch (IOException | RuntimeException e) {
        guard.release(); // no shipping: rotation keeps what nnaudit.file.max.backups says
        LOG.error("nnaudit: cannot start shipping {} to Kafka ({}); the records stay in the file, nothing is "
            + "shipped until the next start", context.file(), e.toString(), e);
        return;
      }
      int interruptedPasses = 0; // in a row
      while (!(stop.requested() && (caughtUp() || stop.timeIsUp()))) {
        stop.clearStrayInterrupt(); // left set, reading the files and the producer's waits would fail
        try {
          pass();
          interruptedPasses = 0;
        } catch (IOException e) { // reading the spool: look again later, from where reading stopped
          reader.close();
          if (!StopSignal.byInterrupt(e)) {
            warnings.warn("reading the audit files failed", e);
            stop.pause(settings.retryBackoffMs);
          } else if (++interruptedPasses > 1) { // a storm of interrupts: the files are opened again, and the
            stop.pause(settings.retryBackoffMs); // current file's seals sent again, at most once a backoff
          } // else a channel an interrupt closed: read again at once (the interrupt is cleared at the loop's top)
        } catch (RuntimeException e) { // the client library: go back to the last acknowledged record
          acks.countSendError();
          warnings.warn("shipping failed", e);
          acks.fail(e);
        }
        stop.clearStrayInterrupt(); // left set, caughtUp()'s look at the files would fail
      }
    } catch (Throwable t) {
      LOG.error("nnaudit: the Kafka shipper of {} failed; shipping stops until the next start, the records stay "
          + "in the file", context.file(), t);
    } finally {
      try {
        if (acks.acknowledged() != null) {
          finish();
        }
      } finally {
        ACTIVE.remove(checkpointName, thread);
      }
    }
  }

  /**
   * A shipper that ended for a re-initialize may still be closing: waits for it, so that one shipper at a time
   * works on a checkpoint. Returns whether it waited (the checkpoint is then read again), or null if a stop
   * came first.
   */
  private Boolean awaitPredecessor(String checkpointName) {
    boolean waited = false;
    while (!stop.requested()) {
      Thread before = ACTIVE.putIfAbsent(checkpointName, thread);
      if (before == null) {
        return waited;
      }
      if (!before.isAlive()) {
        ACTIVE.remove(checkpointName, before);
        continue;
      }
      waited = true;
      LOG.info("nnaudit: waiting for the shipper before this one on {} to end", checkpointName);
      try {
        before.join(1000);
      } catch (InterruptedException e) {
        stop.strayInterrupted(); // only a stop ends the wait
      }
    }
    return null;
  }

  /**
   * Where to start, from the checkpoint; on the thread, once no other shipper works on the checkpoint. The
   * checkpoint and the head of its file are read through streams, which no interrupt closes.
   */
  private void begin(boolean reload) throws IOException {
    ShipCheckpoint cp = reload ? ShipCheckpoint.load(settings.checkpoint) : startCheckpoint;
    ShipPosition start = checkpointer.startPosition(cp);
    reader.begin(start);
    sender.begin(start);
    checkpointer.begin(cp, start);
    begun = true;
    LOG.info("nnaudit: shipping {} to Kafka topic {} at {} as {} (epoch {}), from {}", context.file(),
        settings.topic, settings.bootstrapServers, settings.source, sender.epoch(), start);
  }

  private void gapNoted() {
    checkpointer.gapNoted();
  }

  /** One pass of the loop. */
  private void pass() throws IOException {
    gaps.settle(acks.current());
    if (acks.isBroken()) {
      recover();
      return;
    }
    if (!sender.isOpen() && !sender.open()) {
      stop.pause(settings.retryBackoffMs);
      return;
    }
    sender.clearRefusal();
    reader.announceLosses();
    // One unit of work: the first gap, which reaches Kafka before the records after it, or a read.
    boolean sendingGap = !gaps.isEmpty();
    boolean progressed = sendingGap ? gaps.sendFirst(sender, reader.position()) : reader.step();
    // Caught up with the writer: wait, then read what came meanwhile as one burst. Chasing each write instead
    // costs a look at the file, a read and a producer batch per few lines, on the NameNode's CPU.
    boolean atWriter = !progressed || !sendingGap && reader.atLiveEnd();
    long now = System.currentTimeMillis();
    if (atWriter || now - lag.lastObserveMillis() >= OBSERVE_INTERVAL_MS) {
      observe(now); // before each wait, so that the lag is looked at once a burst
    }
    if (atWriter && !acks.isBroken()) {
      if (sender.lastSendRefused()) {
        stop.pause(settings.retryBackoffMs);
      } else {
        stop.pause(settings.pollIntervalMs, Math.min(10, settings.pollIntervalMs));
      }
    }
  }

  /**
   * While stopping: whether everything the files hold is acknowledged, seals included (a seal in flight leaves the
   * acknowledged position where it is, and the finish's close, which an interrupt from outside can cut short, must
   * have nothing left to wait for); a failed look at the files is not caught up.
   */
  private boolean caughtUp() {
    try {
      return !acks.isBroken() && gaps.isEmpty() && acks.acknowledged().global() == reader.position().global()
          && acks.current().allAcknowledged(sender.nextSeq()) && reader.drained();
    } catch (IOException e) { // the pass reads again, until the stop's time is up; from a new channel if an
      if (StopSignal.byInterrupt(e)) { // interrupt closed this one
        reader.close();
      }
      return false;
    }
  }

  /** Lag, files waiting, the guard's hold and the checkpoint, from one look at the files. */
  private void observe(long now) throws IOException {
    ShipPosition a = acks.acknowledged();
    lag.looking(now);
    // Caught up within the live file (the usual case, once a burst): the lag needs that file alone, and a look at
    // it costs one lstat where a listing reads the directory and lstats every rotated file.
    SpoolFile live = dir.liveFile();
    lag.observe(live != null && live.key.equals(a.fileKey) ? Collections.singletonList(live) : dir.list(), a, now);
    sender.refreshRetries();
    if (checkpointer.due(a, now)) {
      checkpointer.write(a, now, false);
    }
  }

  /** After a failed send: drop the producer and what it holds, and send again from the last acknowledged record. */
  private void recover() {
    Acknowledgements.Generation old = sender.rewind();
    gaps.settle(old);
    gaps.forgetInFlight(); // a gap not acknowledged is sent again
    seals.refused(old.refusedSealAt());
    ShipPosition a = old.acknowledged();
    warnings.warn("a record was not acknowledged; resending from " + a + " after " + settings.retryBackoffMs
        + " ms", old.broken());
    reader.rewind(numbers.resumeAt(a), old.refusedRecordAt(), old.refusedTogetherEnd());
    stop.pause(settings.retryBackoffMs);
  }

  private void finish() {
    stop.clearStrayInterrupt(); // left set, the close would not wait for acknowledgements, nor the checkpoint be saved
    // Caught up, nothing is in flight; out of time, nothing is waited for: the wait matters only after a failure.
    sender.close(Duration.ofMillis(stop.requested() ? stop.millisLeft() : 0));
    reader.close();
    ShipPosition a = acks.acknowledged();
    stop.clearStrayInterrupt(); // an interrupt that cut the close short must not cost the checkpoint too
    checkpointer.write(a, System.currentTimeMillis(), false);
    LOG.info("nnaudit: stopped shipping {} to Kafka at {}: {}", context.file(), a, stats());
  }

  @Override
  public String toString() {
    return "kafka(" + settings.topic + " at " + settings.bootstrapServers + " as " + settings.source + ")";
  }
}
