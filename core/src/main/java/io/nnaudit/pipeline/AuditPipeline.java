package io.nnaudit.pipeline;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.hadoop.util.ShutdownHookManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.nnaudit.ack.AckTicket;
import io.nnaudit.event.AuditEvent;
import io.nnaudit.format.HdfsRecordFormatter;
import io.nnaudit.format.JsonRecordFormatter;
import io.nnaudit.format.RecordFormatter;
import io.nnaudit.journal.HandlerFormatting;
import io.nnaudit.journal.RecordJournal;
import io.nnaudit.settings.AckPolicy;
import io.nnaudit.settings.NnauditSettings;
import io.nnaudit.settings.NnauditSettings.RecordFormat;
import io.nnaudit.ship.ShipStats;
import io.nnaudit.sink.AuditSink;

/**
 * One audit destination: a bounded queue, the writer thread that drains it, and the sink it writes to. This
 * class wires the parts and orders their start and stop; each part's note says what it blocks on and who owns
 * what in it.
 *
 * <p>The walk of one event: {@link io.nnaudit.QueuedAuditLogger#logAuditEvent} captures an immutable {@link AuditEvent}
 * (with an {@link AckTicket} when the operation's acknowledgement waits for its record) and calls
 * {@link #offer}, which the {@link AuditQueue} admits by the queue-full policy. The {@link AuditWriter}, on its
 * {@link WriterThread}, takes batches from the queue; the {@link ChunkWriter} formats them into one buffer and
 * hands it to the {@link BatchCommitter}, which writes it to the {@link AuditSink} with one write call, fsyncs
 * as configured, and completes the batch's tickets (sending the postponed RPC responses). Under ack policy
 * journal the handler formats its record itself and puts it in the sink's journal and its event in the queue
 * together ({@link #offerJournaled}, {@link RecordJournal}); its operation is acknowledged at once, and the
 * writer writes the handler's bytes. Under ack policy
 * write with durability none, BLOCK and a sink that undoes a failed write (the file sink), the handler that
 * finds no one writing leads the write itself ({@link #lead}, {@link WriteLeader}), under the write lock. After
 * the shutdown hook's hand-over, handlers write their own records ({@link #afterClose}, {@link ShutdownHandOver},
 * {@link DirectWriter}). Whoever settles an event's fate counts it in {@link AuditMetrics}, read as one snapshot
 * by {@link #stats}. The shipper, when the file is shipped, is the {@link ShipperLifecycle}'s; the beans in
 * {@code /jmx}, {@link PipelineBeans}'.
 *
 * <p>Where a handler waits, and for how long. A handler waits only in these places; an interrupt ends none of
 * these waits (its flag is restored):
 * <ul>
 * <li>Under BLOCK, for room in a full queue (by count, or by the byte budget): at most
 * {@code nnaudit.handler.max.wait.ms} (checked every 10 ms); then its event is refused ({@link AuditQueue}).
 * Under DROP it never waits there.</li>
 * <li>Outside an RPC (fsck), under ack policy write or durability sync, for its record: at most
 * {@code nnaudit.handler.max.wait.ms} ({@link io.nnaudit.QueuedAuditLogger}).</li>
 * <li>Under ack policy journal ({@link #offerJournaled}), for the journal's lock, which each holder keeps to copy
 * one record into the mapped ring and queue its event, and for a page fault of that copy
 * ({@link RecordJournal}).</li>
 * <li>Leading a write: never for the lock (a {@code tryLock}); it holds it while it writes at most
 * {@link WriteLeader#LEAD_ROUNDS} batches, each in write calls of about 1 MiB, and completes their tickets
 * (serializing those responses for the RPC layer), and waits for what each write call does (below).</li>
 * <li>After the shutdown hook began: for the hand-over of the sink and then for the write lock, both to one
 * deadline, the earlier of {@code nnaudit.handler.max.wait.ms} and {@code nnaudit.shutdown.timeout.ms} + 1 s
 * from its arrival; then for its own write call, whose retries of a refusing disk (fail-closed) end at that
 * deadline, its fsync (durability other than none, when due) and its record's seal (below).</li>
 * </ul>
 * What one write call waits for, on a leader or a direct writer, is bounded by no setting: the sink's write
 * (for the file, write(2), as long as the kernel holds it; for another sink, its own call), under durability
 * other than none the fsyncs, and with the file sink ({@link io.nnaudit.sink.file.RollingFileSink}) a rotation:
 * its renames and deletes, and, when the file is shipped, the reading of the unshipped part of each rotated file
 * it deletes beyond the spool's bound, to count its records (up to a whole rotated file). With sealing, a write
 * call also waits for the sealing thread ({@link io.nnaudit.seal.SealingThread}): each request (a seal before a
 * rotation, the first seal of a new file, a seal owed or failing under fail-closed, a direct write's own seal)
 * is answered or failed within 30 s, and one write call makes at most six of them (two each for reopening or
 * following a replaced file, for a rotation, and for the seal check before the write; none in the common case),
 * plus one for a direct write's seal; and a write waits for room in the sealing thread's 16 MiB queue of bytes
 * to hash, as long as hashing them takes (milliseconds), which is unbounded when the sealing thread is held in
 * a hung write or fsync of the digest file. A handler that refuses an event, or whose lead fails, also logs a
 * rate-limited ERROR line through the NameNode's log. What happens when the disk fails is the committer's
 * business: under fail-closed the queue backs up and BLOCK handlers wait, to their bound.
 *
 * <p>Two ways to stop, in this order of events:
 * <ul>
 * <li>At the JVM's exit (SIGTERM), two hooks registered with Hadoop's {@link ShutdownHookManager}, which runs its
 * hooks one after the other, highest priority first. A real NameNode goes on serving RPCs while the hooks run, and
 * the JVM halts when the last has returned, wherever the handlers are. {@link #shutdown} runs before Hadoop's
 * SHUTDOWN_MSG hook: (1) handlers stop queueing and wait for the hand-over; (2) the writer drains everything
 * accepted, writes the last drop report and ends, leaving the sink open; (3) the hook fsyncs (durability other than
 * none), seals and hands the sink over; (4) from then on each handler writes (and, with durability other than none,
 * fsyncs when due) its own record and has it sealed, all under the write lock, before its operation is acknowledged,
 * within the bounds above, after which its operation is answered with an error. If the writer cannot drain within
 * {@code nnaudit.shutdown.timeout.ms}, nothing is handed over and later operations are never acknowledged.
 * {@link #closeAtExit} runs after every other Hadoop hook, SHUTDOWN_MSG's included, so that the JVM halts right
 * after it:
 * (5) it marks the pipeline ended; (6) it waits for the write lock, which no handler holds between its record and
 * its seal, and for the writer thread, should (2) have abandoned it; (7) it fsyncs what is not yet fsynced and
 * closes the sink, which seals whatever is still unsealed (the file sink's CLOSE seal, written even when each record
 * was sealed as it was written), so nothing follows the last seal. A handler that comes after (5) writes nothing:
 * its event is refused, counted, and its operation answered with an error, so every operation acknowledged has its
 * record, and every record its seal. The waits of (6) end at {@code nnaudit.shutdown.timeout.ms}; past it (a handler
 * held in write(2)) the sink stays open and that handler's record may be left unsealed when the JVM halts.
 * SHUTDOWN_MSG's hook shuts log4j down, so the last hook writes its one line to standard error, and the refusals
 * after (5) are counted but not logged. The shipper goes on reading the file through (4) to (7) and stops after
 * (7), within {@code nnaudit.kafka.stop.timeout.ms}: the records handlers wrote themselves and the CLOSE seal
 * reach the topic before the JVM halts, so the stream ends sealed as the file does.</li>
 * <li>{@link #close}, for a re-initialize that replaces the pipeline and for embedders: (1) refuse new events
 * (the logger follows its slot to the replacement, or refuses the event); (2) wait for handlers already
 * inside {@code offer}; (3) the writer, seeing the pipeline closed, quiet and empty, writes what is left,
 * closes the sink and ends; (4) wait for it, up to the timeout, after which it stops retrying; then the shipper
 * stops. It removes both hooks, and {@link #closeAtExit} does nothing for a pipeline that never went direct.
 * Called on a pipeline that went direct, it ends the direct writes and closes the sink as (5) to (7) do, within
 * its timeout.</li>
 * </ul>
 * A writer that dies of an error it could not handle switches the pipeline to direct writing in the same way,
 * from (4) on, and at the JVM's exit {@link #closeAtExit} closes its sink as well.
 */
public final class AuditPipeline {
  /*
   * Implementation notes.
   *
   * Who owns what. The final fields are made by the constructor and are thread-safe themselves (each part's
   * note says how). sink and leader are written once, by open() under the registry's lock, and read by anyone
   * afterwards (volatile; a handler that offers before open() finds no leader and leaves its event to the
   * writer thread to come). The writing state behind the writer belongs to one writing thread at a time: see
   * AuditWriter.
   *
   * Locks. The Lifecycle's monitor only orders the changes of its flags between close(), shutdown(),
   * closeAtExit(), a dying writer and failUnopened(); nothing waits or takes another lock while holding it.
   * writeLock is the one lock held across I/O: a leader's or a direct writer's write(2) and seal, the hook's last
   * fsync and seal, the last hook's fsync and close. open() runs under the registry's lock, and so does close()
   * when a pipeline is replaced; a handler never takes it.
   *
   * Counting. Each count is made by the thread that settles that part of an event's fate: the handler
   * (accepted, blocked, dropped at the queue, refused, capture failed, refused after the last hook), the
   * writing thread (written, failed, given up under fail-open, tickets aborted, not durable).
   */
  private static final Logger LOG = LoggerFactory.getLogger(AuditPipeline.class);
  /** Runs before Hadoop's SHUTDOWN_MSG hook (priority 0), after the FileSystem cache's (10). */
  static final int SHUTDOWN_HOOK_PRIORITY = 1;
  /**
   * Runs after every other Hadoop hook, SHUTDOWN_MSG's (0) included. Not Integer.MIN_VALUE: Hadoop orders
   * hooks by subtracting priorities, which would overflow and run it first.
   */
  static final int CLOSE_HOOK_PRIORITY = Integer.MIN_VALUE / 2;
  /** What the last hook may take beyond nnaudit.shutdown.timeout.ms: its fsync and the sink's close (a seal). */
  private static final long CLOSE_HOOK_SLACK_MS = 5000;

  private final NnauditSettings settings;
  private final AuditMetrics metrics;
  private final DropTracker drops;
  private final Lifecycle life = new Lifecycle();
  private final Refusals refusals;
  private final WriterThread writerThread = new WriterThread(life);
  private final AuditQueue queue;
  /** Guards the writing state whenever more than one thread may write: see WriteLeader and ShutdownHandOver. */
  private final ReentrantLock writeLock = new ReentrantLock();
  private final ShutdownHandOver handOver;
  private final ShipperLifecycle shipping;
  private final PipelineBeans beans = new PipelineBeans();
  /** Registered by open(), removed by close(). */
  private final Runnable shutdownHook = this::shutdown;
  private final Runnable closeHook = this::closeAtExit;
  /** Written once by open(); read by stats(). */
  private volatile AuditSink sink;
  /** Written once by open(); null while not open, or when handlers do not lead writes. */
  private volatile WriteLeader leader;
  /** Written once by open() under ack policy journal (the sink's journal); null otherwise and before. */
  private volatile RecordJournal journal;
  /** Formats journaled records on their handlers; null unless ack policy journal. */
  private final HandlerFormatting handlerFormatting;

  private AuditPipeline(NnauditSettings settings) {
    this.settings = settings;
    this.metrics = new AuditMetrics(settings.percentileIntervals());
    this.drops = new DropTracker(metrics, settings.dropWarnIntervalMs(), LOG, settings.file().getPath());
    this.refusals = new Refusals(drops, metrics);
    this.queue = new AuditQueue(settings, life, metrics, drops, refusals, writerThread);
    this.handOver = new ShutdownHandOver(settings, life, writeLock, queue, metrics, refusals, writerThread,
        this::stats);
    this.shipping = new ShipperLifecycle(settings);
    this.handlerFormatting = settings.ackPolicy() == AckPolicy.JOURNAL
        ? new HandlerFormatting(() -> newFormatter(settings)) : null;
  }

  private static RecordFormatter newFormatter(NnauditSettings settings) {
    return settings.recordFormat() == RecordFormat.JSON
        ? new JsonRecordFormatter(settings.formatOptions()) : new HdfsRecordFormatter(settings.formatOptions());
  }

  /** Opens the sink (failing with a message naming the key) and starts the writer thread. */
  static AuditPipeline start(NnauditSettings settings) {
    AuditPipeline p = prepare(settings);
    p.open(p.openSink(settings));
    return p;
  }

  /**
   * A pipeline that queues events but does not write yet: a replacement is published before the pipeline it
   * replaces closes the file, so that no event finds neither open. The settings checked the sink class.
   */
  static AuditPipeline prepare(NnauditSettings settings) {
    return new AuditPipeline(settings);
  }

  /** Starts writing to {@code sink}: the writer thread, the shipper, the metrics source and the two hooks. */
  void open(AuditSink sink) {
    RecordFormatter formatter = newFormatter(settings);
    WriterParts parts = WriterParts.wire(settings, life, queue, sink, formatter, drops, metrics,
        WriteLeader.leadsByHandlers(settings, sink), writeLock, writerThread, refusals);
    this.sink = sink;
    handOver.open(parts);
    shipping.make();
    try {
      ShutdownHookManager.get().addShutdownHook(shutdownHook, SHUTDOWN_HOOK_PRIORITY,
          settings.shutdownTimeoutMs() + 1000, TimeUnit.MILLISECONDS);
      ShutdownHookManager.get().addShutdownHook(closeHook, CLOSE_HOOK_PRIORITY,
          settings.shutdownTimeoutMs() + CLOSE_HOOK_SLACK_MS + shipping.hookExtraMs(), TimeUnit.MILLISECONDS);
    } catch (IllegalStateException shutdownInProgress) {
      LOG.warn("nnaudit: the JVM is already stopping; {} gets no shutdown hook", settings.file());
    }
    writerThread.start(parts.writer, "nnaudit-writer[" + settings.file().getName() + "]", handOver::degrade);
    leader = parts.leader;
    journal = settings.ackPolicy() == AckPolicy.JOURNAL ? sink.journal() : null;
    shipping.start();
    beans.register(this, sink);
    LOG.info("nnaudit: started audit pipeline ({})", settings);
    String weakened = settings.weakenedSyncGuarantee();
    if (weakened != null) {
      LOG.warn("nnaudit: durability=sync is weakened: {}; such operations are acknowledged without a durable "
          + "record (they are counted as dropped)", weakened);
    }
  }

  /**
   * Opens the sink of {@code settings} (this pipeline's, or the previous ones' when this pipeline's cannot be
   * opened) with their sink factory; throws {@link IllegalArgumentException} naming the key when it cannot be
   * opened. When this pipeline ships that file, its rotation keeps what the shipper has not finished.
   */
  AuditSink openSink(NnauditSettings s) {
    return s.sinkFactory().open(shipping.sinkContext(s));
  }

  /**
   * A replacement whose sink could not be opened at all: refuse what it queued (answered with errors) and
   * everything after, rather than queue events nobody will write.
   */
  void failUnopened(String why) {
    life.close();
    while (!life.isQuiescent()) {
      Thread.yield();
    }
    AuditEvent e;
    while ((e = queue.poll()) != null) {
      refusals.refuse(e, why);
      if (e.ticket != null) {
        e.ticket.abort(why);
      }
    }
  }

  /** Hands one event to the writer, by the queue-full policy ({@link AuditQueue}). Never throws. */
  public Offer offer(AuditEvent e) {
    return queue.offer(e);
  }

  /**
   * Under ack policy journal: formats {@code e}'s record on the calling handler and puts it in the journal and
   * {@code e} in the queue, without waiting ({@link RecordJournal#append}). Returns ACCEPTED (the operation may
   * be acknowledged now: its record is in the journal), CLOSED as {@link #offer} does, or null when the journal
   * could not take it (not open yet, suspended, no room, a full queue): the caller then offers it with a ticket
   * and waits for its write. Throws only what formatting or the copy into the mapping throws.
   */
  public Offer offerJournaled(AuditEvent e) {
    RecordJournal j = journal;
    if (j == null || !j.accepting()) {
      return null;
    }
    return queue.offerJournaled(e, handlerFormatting.format(e), j);
  }

  /**
   * After its event was accepted: a handler that finds no one writing writes what is queued, when handlers lead
   * writes ({@link WriteLeader}); otherwise nothing. Never throws.
   */
  public void lead() {
    WriteLeader l = leader;
    if (l != null) { // null: the writer thread writes (or, before open, will write) what was queued
      l.lead();
    }
  }

  /**
   * For an event that found this pipeline closed (and no replacement): after the shutdown hook, writes it on
   * the calling thread once the sink is handed over, until the last hook takes it back; otherwise refuses it
   * ({@link ShutdownHandOver}). Never throws.
   */
  public Offer afterClose(AuditEvent e) {
    return handOver.afterClose(e);
  }

  /** Heap held by queued events now (and by the writer's batch in hand). */
  long queuedBytes() {
    return queue.queuedBytes();
  }

  /** The metrics2 source name of this pipeline (as in /jmx), or null when metrics could not be registered. */
  public String metricsSourceName() {
    return beans.metricsSourceName();
  }

  /**
   * The name of the bean that shows this pipeline's latest seal live ({@code NnauditSeal...}, as in /jmx), or
   * null when the file is not sealed or the bean could not be registered.
   */
  public String sealAnchorName() {
    return beans.sealAnchorName();
  }

  /** The shipper's counts and lag now, or null when nothing is shipped. */
  public ShipStats shipStats() {
    return shipping.stats();
  }

  /** Under ack policy journal: an event the journal could not take waits for its write instead. */
  public void countJournalWait() {
    metrics.countJournalWait();
  }

  public void countCaptureFailure() {
    metrics.countCaptureFailure();
  }

  AuditMetrics metrics() {
    return metrics;
  }

  public boolean isOpen() {
    return life.isOpen();
  }

  public NnauditSettings settings() {
    return settings;
  }

  /**
   * Waits until every event accepted before this call has been written (or has failed), up to the timeout.
   * Returns whether it got there.
   */
  public boolean awaitWritten(long timeoutMs) throws InterruptedException {
    long target = metrics.accepted();
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    while (metrics.acceptedSettled() < target) {
      if (System.nanoTime() - deadline >= 0) {
        return false;
      }
      Thread.sleep(1);
    }
    return true;
  }

  /**
   * The first of the two JVM shutdown hooks: drains what was accepted, then hands the open sink to the
   * handlers, which write their own records until {@link #closeAtExit} (see the design note). Returns whether
   * the hand-over happened.
   */
  public boolean shutdown() {
    if (!life.goDirect()) {
      return life.handedOver;
    }
    boolean done = finishWriter(settings.shutdownTimeoutMs());
    if (done) {
      handOver.handOver();
    }
    return done; // the shipper goes on: it stops in the last hook, once the sink is closed and sealed
  }

  /**
   * The last of Hadoop's shutdown hooks, after which the JVM halts: ends the handlers' direct writes and closes
   * the sink, so that nothing is written after its last seal (see the design note, steps 5 to 7). Waits, for at
   * most {@code nnaudit.shutdown.timeout.ms} in all, for a writer thread the first hook abandoned and for the
   * write lock; an interrupt (Hadoop cancels a hook past its timeout) ends the wait. Does nothing for a
   * pipeline that never went direct: {@link #close} or its writer closes that sink, and close() stops its
   * shipper. Once it has closed the sink, stops the shipper, which ships what is left, the sink's last seal
   * included, for at most {@code nnaudit.kafka.stop.timeout.ms}. Returns whether it closed the sink without an
   * error.
   */
  public boolean closeAtExit() {
    // The shipper stops once the sink is closed, so that its last seal is shipped too; a pipeline that close()
    // ended (or ends now) has its shipper stopped by close(), after its own close of the sink.
    return handOver.endDirectWrites(settings.shutdownTimeoutMs(), true, shipping::stopAtExit);
  }

  /**
   * Stops taking events, drains what was accepted into the sink and closes it; idempotent. A pipeline gone
   * direct (after {@link #shutdown}, or a writer that died) has its direct writes ended and its sink closed, as
   * {@link #closeAtExit} does. Returns true when the writer finished within {@code timeoutMs}.
   */
  public boolean close(long timeoutMs) {
    boolean already = life.close();
    try {
      ShutdownHookManager.get().removeShutdownHook(shutdownHook);
      ShutdownHookManager.get().removeShutdownHook(closeHook);
    } catch (IllegalStateException shutdownInProgress) {
      // The JVM is already running hooks: nothing to remove; the last one does nothing once the sink is closed.
    }
    if (already) {
      boolean done = !writerThread.started() || writerThread.join(timeoutMs);
      handOver.endDirectWrites(timeoutMs, false, shipping::stop); // the last hook stops it if it ends them
      return done;
    }
    boolean done = finishWriter(timeoutMs);
    shipping.stop();
    if (done) {
      LOG.info("nnaudit: closed audit pipeline for {}: {}", settings.file(), stats());
    }
    return done;
  }

  /** After closed is set: wakes the writer, waits for it, and abandons it at the timeout. */
  private boolean finishWriter(long timeoutMs) {
    if (!writerThread.started()) {
      return true;
    }
    writerThread.unpark();
    boolean done = writerThread.join(timeoutMs);
    beans.unregister();
    if (!done) {
      life.abandoned = true; // a failing sink is no longer retried; the writer fails what is left and ends
      AuditSink abandonedSink = sink;
      if (abandonedSink != null && abandonedSink.journal() != null) {
        // A writer held in a write must not move the journal's mark under a start that replays it: the records
        // it has not written stay past the mark, for the next start (some perhaps twice).
        abandonedSink.journal().close();
      }
      // Wait for it to end, so that a replacement never opens the file while this writer can still touch it.
      writerThread.join(Math.max(1000, settings.failureRetryIntervalMs() * 2));
      LOG.error("nnaudit: the audit writer for {} did not finish within {} ms; {} accepted events are not yet "
          + "written and their operations will not be acknowledged: {}", settings.file(), timeoutMs,
          queue.size(), stats());
    }
    return done;
  }

  /** Every count and gauge of this pipeline, read now: what its metrics and its log lines report. */
  public AuditStats stats() {
    return queue.gauges(metrics.snapshot()).sinkCounts(sink).build();
  }
}
