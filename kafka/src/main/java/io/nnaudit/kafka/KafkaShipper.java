package io.nnaudit.kafka;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.ship.ShipStats;
import io.nnaudit.ship.Shipper;
import io.nnaudit.ship.ShipperContext;
import io.nnaudit.ship.SpoolGuard;
import io.nnaudit.trail.Lstat;
import io.nnaudit.trail.TrailNames;

/**
 * Ships the local audit file to Kafka: one thread in the NameNode reads the records the pipeline has written
 * (the live file, and rotated files it has not finished, oldest first) and sends each, as written, with an
 * idempotent producer ({@code acks=all}, ordered, unlimited retries within {@code delivery.timeout.ms}). Every
 * record of one NameNode has the same key, so they stay in order in one partition, and carries its identity in
 * its headers ({@link ShipHeaders}).
 *
 * <p>Design note.
 * <ul>
 * <li>What blocks: only this shipper's own thread, on the disk and in {@code send} (at most
 * {@code max.block.ms}, for metadata or buffer space). No handler and no writer ever waits for it: the file is
 * the spool, so an outage, a slow broker or a missing topic only makes the lag grow. Each pass of its loop sends
 * at most one buffer of lines and stops early once a send failed or the stop's time is up, so a stop is bounded
 * by the time given plus one {@code max.block.ms}.</li>
 * <li>What drops: nothing silently. A send the producer refuses at once (no metadata, no buffer space: it then
 * calls the callback inside {@code send}) leaves the position where it was and is tried again after
 * {@code nnaudit.kafka.retry.backoff.ms}. A send that fails later (the delivery timeout passed, an authorization
 * error) makes the thread close the producer, go back to the last acknowledged record, and send again from
 * there: records after it may reach Kafka twice, with the same identity. A record the broker refuses as too
 * large is sent again cut to 1 KiB ({@code record-cut}); refused again, it is skipped and a gap record says so.
 * A file that rotation had to delete before it was shipped ({@code nnaudit.kafka.spool.max.backups} reached), a
 * file gone from the directory, and a file that shrank are announced by gap records, each kept until Kafka has
 * acknowledged it.</li>
 * <li>Seals: when the file is sealed, the seals of its digest ({@code <file>.seals}) are sent too, each once
 * the record that ends where its range ends is sent (one of an empty range first), so that the chain of seals
 * leaves the host with the records. The digest is read after the file at each pass, through a channel that
 * follows it through rotation's renames; the sink's sealing thread writes a seal a moment after the bytes it
 * covers, so a seal may come a pass later, after later records, and a file's seals are all there once it is
 * rotated (rotation waits for its last seal). A seal's acknowledgement moves nothing: a rewind or a restart
 * sends every seal of the file it resumes in again (one that ends before the position may not have been sent;
 * duplicates share an identity). A seal refused by the broker as such is given up with a gap record. Per read:
 * an fstat of the digest; without sealing, nothing.</li>
 * <li>Progress: the acknowledged position advances only with acknowledgements that arrive in the order of
 * sending (checked by sequence, so a hole can never be skipped over); it is written to the checkpoint every
 * {@code nnaudit.kafka.checkpoint.interval.ms}, at each new file number and at the stop. The guard keeps every
 * file from the last checkpointed position on, so rotation never deletes what a restart would need.</li>
 * <li>Stop ({@link #stop}), after the pipeline's writer has finished: the thread ships what the file holds until
 * it is caught up or the time given has passed, closes the producer within what is left of it (waiting for
 * acknowledgements in flight), writes the checkpoint and ends. One shipper per checkpoint at a time in a JVM:
 * a replacement waits for the one before it to end.</li>
 * </ul>
 * Who owns what: the reading state (position, channel, buffer, producer, sequence, pending gap, checkpoint) is
 * the shipper thread's. {@link #acknowledged}, {@link #nextAckSeq} and {@link #gapAckedSeq} are written by the
 * producer's I/O thread in its callbacks (for the current {@link #generation} only) and read by the shipper's
 * thread and the metrics; {@link #syncRefusal} is written by a callback the producer runs on the shipper's own
 * thread. The counters and gauges are volatile or atomic, read by the metrics.
 */
public final class KafkaShipper implements Shipper {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaShipper.class);
  private static final int FIRST_BUFFER_BYTES = 256 * 1024;
  private static final int MAX_BUFFER_BYTES = 64 * 1024 * 1024;
  private static final long OBSERVE_INTERVAL_MS = 250;
  private static final long WARN_INTERVAL_MS = 60_000;
  /** A record the broker refuses as too large is sent again cut to this many bytes. */
  private static final int REFUSED_RECORD_CUT_BYTES = 1024;
  /** The checkpoints a shipper of this JVM works on: a replacement waits for the shipper before it to end. */
  private static final Map<String, Thread> ACTIVE = new ConcurrentHashMap<>();
  /** The digest of the file being read was not looked for since the file was opened. */
  private static final int LOOK_NEVER = 0;
  /** It was not there while the file was live: looked for again while new records come. */
  private static final int LOOK_LIVE = 1;
  /** It was not there once the file was no longer written: it will not come. */
  private static final int LOOK_DONE = 2;

  private final ShipperSettings settings;
  private final SpoolDirectory dir;
  private final SpoolGuard guard;
  private final ShipperContext context;
  private final long epoch = System.currentTimeMillis();
  private final byte[] key;
  private final String format;
  /** Whether this NameNode seals its audit files: a live file's digest may come after the file. */
  private final boolean sealing;
  private final Thread thread;

  // The shipper's thread only.
  private KafkaProducer<byte[], byte[]> producer;
  private ShipPosition read;
  private FileChannel channel;
  private ByteBuffer buffer = ByteBuffer.allocate(FIRST_BUFFER_BYTES);
  private long nextSeq;
  private long maxFileSeq;
  /** The checkpoint read at start-up (null: none); read on the thread, after the shipper before this one ended. */
  private ShipCheckpoint startCheckpoint;
  /**
   * Where the trail goes on after a file that vanished or shrank (keyed by its key and number): a rewind into
   * such a file continues there, so the decision, its gap and its new file number are made once.
   */
  private final Map<String, ShipPosition> renumbered = new java.util.HashMap<>();
  /** Files read to their end since the last checkpoint: their deletion by rotation is no loss. */
  private final java.util.Set<String> finishedKeys = new java.util.HashSet<>();
  /**
   * Keys of files rotation deleted unshipped: a new file may get the same inode, and must not be read as the
   * deleted one. A key leaves the set when a new file with it is given a number.
   */
  private final java.util.Set<String> deadKeys = new java.util.HashSet<>();
  /** Gap records to send, oldest first; each is kept until Kafka has acknowledged it. */
  private final ArrayDeque<Gap> pendingGaps = new ArrayDeque<>();
  /** How many gap records wait to be acknowledged (the shipper's thread writes it, the metrics read it). */
  private volatile int gapsWaiting;
  /** The pending gaps changed since the last checkpoint was written. */
  private boolean gapsChanged;
  /** The seq the first pending gap was sent with, or -1 while it is not in flight. */
  private long gapInFlightSeq = -1;
  private boolean lastSendRefused;
  /** Written by the shipper's thread; read by the metrics (a lower bound of the lag's age while it is blocked). */
  private volatile long lastObserveMillis;
  private long lastCheckpointMillis;
  /** The position of the last checkpoint written (the start position at first): the guard holds from here. */
  private ShipPosition saved;
  private long savedMaxFileSeq;
  private String headKey;
  private int headLength = -1;
  private String headHash;
  private long retriesOfClosedProducers;
  private long lastWarnMillis = Long.MIN_VALUE / 2;
  /** A record refused as too large: its position, and how often it was refused. */
  private long refusedAt = -1;
  private int refusedTimes;
  /** The seals of the file being read, from its digest (none when the file is not sealed). */
  private final DigestFollower seals = new DigestFollower();
  /** Seals of the file being read that end before this byte were shipped before it was opened. */
  private long sealsFrom;
  /** How far the digest of the file being read was looked for while it was not found: {@link #followDigest}. */
  private int digestLook = LOOK_NEVER;
  /** Where a seal the broker refused as such ends ({@link ShipPosition#global}): given up when it comes again. */
  private long refusedSealAt = -1;
  private final LagClock lagClock = new LagClock();
  /** The lag in bytes at the thread's last look: whether a stop is caught up when no file is open. */
  private long lastLagBytes = -1;
  private Exception syncRefusal;

  // Shared, as the design note says.
  private volatile int generation;
  private long nextAckSeq;
  private volatile long gapAckedSeq = -1;
  private volatile ShipPosition acknowledged;
  private volatile Exception broken;
  private final AtomicLong shippedRecords = new AtomicLong();
  private final AtomicLong shippedBytes = new AtomicLong();
  private final AtomicLong sendErrors = new AtomicLong();
  private final AtomicLong lostElsewhere = new AtomicLong();
  private volatile long lastAckMillis;
  /** Set once the shipper's thread knows where it starts: the lag can be computed from then on. */
  private volatile boolean begun;
  /** When the oldest unacknowledged record was first seen (ms since the epoch), 0 for none; see {@link LagClock}. */
  private volatile long oldestUnackedSince;
  private volatile long retries;
  /** Records, and their bytes, handed to the producer and not known to have failed; reset to the acked counts. */
  private final AtomicLong sentRecords = new AtomicLong();
  private final AtomicLong sentBytes = new AtomicLong();
  /** The start of the first record the broker refused as such (too large, invalid), or -1; see {@link Sent}. */
  private volatile long refusedSeen = -1;
  /** Where the first seal the broker refused as such ends ({@link ShipPosition#global}), or -1. */
  private volatile long refusedSealSeen = -1;
  private volatile boolean stopping;
  private volatile long stopDeadlineNanos;

  /**
   * Checks the settings and reads the checkpoint (it is read again on the thread if a shipper before this one
   * was still stopping); does not start. Until the thread knows where it starts, the guard holds every file.
   */
  public KafkaShipper(ShipperContext context) {
    this.context = context;
    this.settings = ShipperSettings.fromConf(context.conf(), context.file());
    this.guard = context.spoolGuard();
    this.dir = new SpoolDirectory(context.file().toPath(), context.maxBackups(), guard);
    this.key = ShipHeaders.bytes(settings.source);
    this.format = context.recordFormat();
    this.sealing = context.conf().getBoolean(NnauditConfigKeys.SEAL_ENABLED_KEY,
        NnauditConfigKeys.SEAL_ENABLED_DEFAULT);
    try {
      this.startCheckpoint = ShipCheckpoint.load(settings.checkpoint);
    } catch (IOException e) {
      throw new IllegalStateException("nnaudit: cannot start shipping " + context.file() + " to Kafka: " + e, e);
    }
    guard.holdEveryFile();
    this.thread = new Thread(this::run, "nnaudit-kafka-shipper[" + context.file().getName() + "]");
    thread.setDaemon(true);
  }

  /** Where to start, from the checkpoint; on the thread, once no other shipper works on the checkpoint. */
  private void begin(boolean reload) throws IOException {
    ShipCheckpoint cp = reload ? ShipCheckpoint.load(settings.checkpoint) : startCheckpoint;
    this.read = startPosition(cp);
    this.maxFileSeq = cp == null ? read.fileSeq : Math.max(cp.maxFileSeq, read.fileSeq);
    this.acknowledged = read;
    this.saved = cp == null ? read : cp.position;
    this.savedMaxFileSeq = cp == null ? -1 : cp.maxFileSeq;
    if (cp != null) { // the gaps the last run had not got acknowledged go first, as they were
      for (int i = cp.gaps.size() - 1; i >= 0; i--) {
        ShipCheckpoint.PendingGap g = cp.gaps.get(i);
        pendingGaps.addFirst(new Gap(g.text, new ShipPosition(g.fileSeq, null, g.offset, 0)));
      }
      gapsWaiting = pendingGaps.size();
    }
    checkpoint(read, System.currentTimeMillis(), false); // records a renumbering at start-up; sets the hold
    begun = true;
    LOG.info("nnaudit: shipping {} to Kafka topic {} at {} as {} (epoch {}), from {}", context.file(),
        settings.topic, settings.bootstrapServers, settings.source, epoch, read);
  }

  /**
   * Checks every shipping setting of {@code conf} without connecting to anything; throws
   * {@link IllegalArgumentException} naming the key, the value and what is allowed.
   */
  public static void validate(Configuration conf) {
    ShipperSettings.fromConf(conf, new File("/nnaudit-audit.log"));
  }

  /** Where the last run stopped, or the oldest file when there was none (see the README on a lost checkpoint). */
  private ShipPosition startPosition(ShipCheckpoint cp) throws IOException {
    List<SpoolFile> files = dir.list();
    if (cp == null) {
      return files.isEmpty() ? new ShipPosition(0, null, 0, Long.MIN_VALUE)
          : new ShipPosition(0, files.get(0).key, 0, files.get(0).modifiedNanos);
    }
    int i = SpoolDirectory.indexOf(files, cp.position.fileKey);
    if (i >= 0) {
      SpoolFile f = files.get(i);
      try (InputStream in = java.nio.file.Files.newInputStream(f.path)) {
        if (cp.sameHead(in)) {
          if (f.size >= cp.position.offset) {
            headKey = cp.position.fileKey;
            headLength = cp.headLength;
            headHash = cp.headHash;
            return cp.position;
          }
          noteGap("the audit file " + cp.position.fileSeq + " is shorter (" + f.size + " bytes) than was shipped ("
              + cp.position.offset + " bytes): it was truncated; it is shipped again from its start as file "
              + (cp.maxFileSeq + 1), cp.position);
          lostElsewhere.incrementAndGet();
          return remember(cp.position, new ShipPosition(cp.maxFileSeq + 1, f.key, 0, f.modifiedNanos));
        }
      }
    }
    noteGap("the audit file " + cp.position.fileSeq + " (" + cp.position.fileKey + ") was gone at start-up from byte "
        + cp.position.offset + " on; what it held past that byte was never shipped", cp.position);
    lostElsewhere.incrementAndGet();
    return remember(cp.position, new ShipPosition(cp.maxFileSeq + 1, null, 0, cp.position.modifiedNanos));
  }

  /** The trail goes on at {@code next} after {@code from}'s file, however often a rewind comes back to it. */
  private ShipPosition remember(ShipPosition from, ShipPosition next) {
    renumbered.put(from.fileKey + "#" + from.fileSeq, next);
    return next;
  }

  @Override
  public void start() {
    thread.start();
  }

  @Override
  public void stop(long timeoutMs) {
    stopDeadlineNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    stopping = true;
    if (!thread.isAlive()) {
      return;
    }
    LockSupport.unpark(thread);
    long maxBlock = Long.parseLong(settings.producer.getProperty("max.block.ms"));
    try {
      thread.join(timeoutMs + maxBlock + 2000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (thread.isAlive()) {
      LOG.warn("nnaudit: the Kafka shipper of {} did not stop in time; it goes on until it can", context.file());
    }
  }

  /**
   * The figures now, from any thread. The lag in bytes and files is computed from a look at the files made by
   * this call (a few lstat calls), so that it is current even while the shipper's thread is held in a send.
   */
  @Override
  public ShipStats stats() {
    long last = lastAckMillis;
    long now = System.currentTimeMillis();
    long[] lag = {-1, -1};
    if (begun) {
      try {
        lag = lagOf(dir.list(), acknowledged);
      } catch (IOException e) {
        LOG.debug("nnaudit: looking at the spool for the metrics failed", e);
      }
    }
    long since = oldestUnackedSince;
    long age = lag[0] <= 0 ? 0 : since != 0 ? now - since : now - lastObserveMillis;
    return new ShipStats(shippedRecords.get(), shippedBytes.get(), lagRecords(lag[0]), lag[0], Math.max(0, age),
        sendErrors.get(), retries, last == 0 ? -1 : now - last, lag[1], guard.lostFiles() + lostElsewhere.get(),
        guard.lostBytes());
  }

  /** Bytes not yet acknowledged and the files holding them, from {@code a} on, in {@code files}. */
  private static long[] lagOf(List<SpoolFile> files, ShipPosition a) {
    int i = a.fileKey == null ? -1 : SpoolDirectory.indexOf(files, a.fileKey);
    long bytes = 0;
    long waiting = 0;
    for (int j = 0; j < files.size(); j++) {
      SpoolFile f = files.get(j);
      if (i >= 0 ? j < i : f.modifiedNanos <= a.modifiedNanos) {
        continue;
      }
      long unacked = f.key.equals(a.fileKey) ? f.size - a.offset : f.size;
      if (unacked > 0) {
        bytes += unacked;
        waiting++;
      }
    }
    return new long[] {bytes, waiting};
  }

  /**
   * The records not yet acknowledged: those handed to the producer, counted exactly, those not yet read,
   * estimated from their bytes at the average record size shipped so far (200 bytes before the first), and gap
   * records waiting. 0 exactly when nothing waits; -1 before the first look at the files. As fresh as the
   * shipper's last look at the files (a send can hold its thread for max.block.ms).
   */
  private long lagRecords(long bytes) {
    if (bytes <= 0) {
      return bytes < 0 ? bytes : gapsWaiting;
    }
    long shipped = shippedRecords.get();
    long shippedB = shippedBytes.get();
    long inFlight = Math.max(0, sentRecords.get() - shipped);
    long unread = Math.max(0, bytes - Math.max(0, sentBytes.get() - shippedB));
    double average = shipped > 0 ? (double) shippedB / shipped : 200;
    return inFlight + (long) Math.ceil(unread / average) + gapsWaiting;
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
        begin(waited);
      } catch (IOException | RuntimeException e) {
        guard.release(); // no shipping: rotation keeps what nnaudit.file.max.backups says
        LOG.error("nnaudit: cannot start shipping {} to Kafka ({}); the records stay in the file, nothing is "
            + "shipped until the next start", context.file(), e.toString(), e);
        return;
      }
      while (!(stopping && (caughtUp() || stopTimeIsUp()))) {
        try {
          pass();
        } catch (IOException e) { // reading the spool: look again later, from where reading stopped
          warn("reading the audit files failed", e);
          closeChannel();
          pause(settings.retryBackoffMs);
        } catch (RuntimeException e) { // the client library: go back to the last acknowledged record
          sendErrors.incrementAndGet();
          warn("shipping failed", e);
          if (broken == null) {
            broken = e;
          }
        }
      }
    } catch (Throwable t) {
      LOG.error("nnaudit: the Kafka shipper of {} failed; shipping stops until the next start, the records stay "
          + "in the file", context.file(), t);
    } finally {
      try {
        if (acknowledged != null) {
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
    while (!stopping) {
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
        Thread.currentThread().interrupt();
        return null;
      }
    }
    return null;
  }

  /** One pass of the loop. */
  private void pass() throws IOException {
    settleGap();
    if (broken != null) {
      recover();
      return;
    }
    if (producer == null && !openProducer()) {
      pause(settings.retryBackoffMs);
      return;
    }
    lastSendRefused = false;
    announceLosses();
    boolean progressed = step();
    long now = System.currentTimeMillis();
    if (!progressed || now - lastObserveMillis >= OBSERVE_INTERVAL_MS) {
      observe(now);
    }
    if (!progressed && broken == null) {
      pause(lastSendRefused ? settings.retryBackoffMs : stopping ? Math.min(10, settings.pollIntervalMs)
          : settings.pollIntervalMs);
    }
  }

  private boolean stopTimeIsUp() {
    return stopping && System.nanoTime() - stopDeadlineNanos >= 0;
  }

  private boolean caughtUp() {
    return broken == null && pendingGaps.isEmpty() && acknowledged.global() == read.global()
        && (channel != null ? readableBytes() == 0 && !seals.waiting(read.offset) : lastLagBytes == 0);
  }

  private long readableBytes() {
    try {
      return channel == null ? 0 : Math.max(0, channel.size() - read.offset);
    } catch (IOException e) {
      return 0;
    }
  }

  /** Waits {@code ms}, less if a stop begins or its time is up. */
  private void pause(long ms) {
    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
    if (stopping && stopDeadlineNanos - end < 0) {
      end = stopDeadlineNanos;
    }
    boolean wasStopping = stopping;
    while (System.nanoTime() - end < 0 && stopping == wasStopping) {
      LockSupport.parkNanos(end - System.nanoTime());
    }
  }

  private boolean openProducer() {
    try {
      nextAckSeq = nextSeq;
      producer = new KafkaProducer<>(settings.producer, new ByteArraySerializer(), new ByteArraySerializer());
      return true;
    } catch (RuntimeException e) {
      sendErrors.incrementAndGet();
      warn("could not create the Kafka producer", e);
      return false;
    }
  }

  /** After a failed send: drop the producer and what it holds, and send again from the last acknowledged record. */
  private void recover() {
    Exception cause = broken;
    generation++; // callbacks of the old producer are ignored from here on
    closeProducer(Duration.ZERO);
    settleGap();
    gapInFlightSeq = -1; // a gap not acknowledged is sent again
    sentRecords.set(shippedRecords.get());
    sentBytes.set(shippedBytes.get());
    ShipPosition a = acknowledged;
    long refused = refusedSeen;
    refusedSeen = -1;
    if (refused >= 0) {
      refusedTimes = refusedAt == refused ? refusedTimes + 1 : 1;
      refusedAt = refused;
    }
    long refusedSeal = refusedSealSeen;
    refusedSealSeen = -1;
    if (refusedSeal >= 0) {
      refusedSealAt = refusedSeal;
    }
    warn("a record was not acknowledged; resending from " + a + " after " + settings.retryBackoffMs + " ms", cause);
    closeChannel();
    ShipPosition next = renumbered.get(a.fileKey + "#" + a.fileSeq);
    read = next != null ? next : a;
    broken = null;
    pause(settings.retryBackoffMs);
  }

  private static boolean isRefusedRecord(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof RecordTooLargeException || c instanceof RecordBatchTooLargeException
          || c instanceof InvalidRecordException) {
        return true;
      }
    }
    return false;
  }

  private void closeProducer(Duration wait) {
    KafkaProducer<byte[], byte[]> p = producer;
    producer = null;
    if (p != null) {
      retriesOfClosedProducers += producerRetries(p);
      try {
        p.close(wait);
      } catch (RuntimeException e) {
        LOG.debug("nnaudit: closing the Kafka producer failed", e);
      }
    }
  }

  /** One unit of work; returns whether it made progress (sent something, or moved to the next file). */
  private boolean step() throws IOException {
    Gap gap = pendingGaps.peekFirst();
    if (gap != null) { // every gap reaches Kafka, in order, before the records after it
      if (gapInFlightSeq >= 0) {
        return false; // waits for its acknowledgement
      }
      long seq = nextSeq;
      if (!sendControl(ShipHeaders.GAP, ShipHeaders.bytes(gap.what), gap.at, read, true)) {
        return false;
      }
      gapInFlightSeq = seq;
      return true;
    }
    if (read.fileKey == null) {
      return pickFirstFile();
    }
    if (channel == null && !openRead()) {
      return false;
    }
    SpoolFile live = dir.liveFile();
    boolean finished = live == null || !live.key.equals(read.fileKey); // looked at before the last read
    int sent = readAndSend(finished);
    if (sent != 0 || broken != null || channel == null) {
      return sent > 0;
    }
    if (!finished) {
      return false;
    }
    SpoolFile next = successor();
    if (next == null) {
      return false;
    }
    if (seals.held() > 0) { // each seal ends where a record does: these end past the file's end
      LOG.warn("nnaudit: shipping {}: {} seals of the audit file {} cover bytes past its end ({} bytes); they are not "
          + "shipped (nnaudit verify reports the file as cut short)", context.file(), seals.held(), read.fileSeq,
          read.offset);
      seals.close();
    }
    ShipPosition after = newFile(read.fileSeq + 1, next);
    if (!sendControl(ShipHeaders.FILE_END, new byte[0], read, after, false)) {
      return false;
    }
    closeChannel();
    finishedKeys.add(read.fileKey);
    read = after;
    return true;
  }

  /** The position at the start of {@code f}, numbered {@code seq}; a number higher than any before is recorded. */
  private ShipPosition newFile(long seq, SpoolFile f) {
    deadKeys.remove(f.key); // from now on the key names this file
    maxFileSeq = Math.max(maxFileSeq, seq);
    if (maxFileSeq > savedMaxFileSeq) {
      checkpoint(acknowledged, System.currentTimeMillis(), true); // before any record carries the number
    }
    return new ShipPosition(seq, f.key, 0, f.modifiedNanos);
  }

  /** No file was known: the oldest newer than the last one known (any, at the first start). */
  private boolean pickFirstFile() throws IOException {
    for (SpoolFile f : dir.list()) {
      if (f.modifiedNanos > read.modifiedNanos) {
        read = newFile(read.fileSeq, f);
        return true;
      }
    }
    return false;
  }

  /**
   * The file written after the one being read, which is no longer live: the next in the rotation, or, if the
   * file being read has gone from it (deleted), the oldest file modified after it.
   */
  private SpoolFile successor() throws IOException {
    List<SpoolFile> files = dir.list();
    int i = SpoolDirectory.indexOf(files, read.fileKey);
    if (i >= 0) {
      return i + 1 < files.size() ? files.get(i + 1) : null;
    }
    for (SpoolFile f : files) {
      if (f.modifiedNanos > read.modifiedNanos) {
        return f;
      }
    }
    return null;
  }

  /**
   * Opens the file {@code read} is in, checking that what was opened is that file. If it is gone, or shorter
   * than what was shipped of it, announces the gap and moves on.
   */
  private boolean openRead() throws IOException {
    announceLosses(); // a deleted file's inode, given to a new file since, is not opened as it
    if (read.fileKey == null) {
      return false;
    }
    for (int attempt = 0; attempt < 5 && !deadKeys.contains(read.fileKey); attempt++) {
      List<SpoolFile> files = dir.list();
      int i = SpoolDirectory.indexOf(files, read.fileKey);
      if (i < 0) {
        break;
      }
      SpoolFile f = files.get(i);
      FileChannel ch;
      try {
        ch = FileChannel.open(f.path, StandardOpenOption.READ);
      } catch (NoSuchFileException e) {
        continue; // renamed since the listing
      }
      if (!read.fileKey.equals(Lstat.key(f.path))) {
        ch.close(); // a rotation renamed another file to that name meanwhile
        continue;
      }
      if (ch.size() < read.offset) {
        ch.close();
        truncated(f, read.offset);
        return false;
      }
      channel = ch;
      read = new ShipPosition(read.fileSeq, read.fileKey, read.offset, Math.max(read.modifiedNanos, f.modifiedNanos));
      seals.close();
      // Every seal of the file is sent again: the sealing thread writes a seal a moment after its bytes, so one
      // ending before this position may never have been sent (duplicates are dropped by identity).
      sealsFrom = 0;
      digestLook = LOOK_NEVER;
      return true;
    }
    noteGap("the audit file " + read.fileSeq + " (" + read.fileKey + ") was deleted from byte " + read.offset
        + " on before it was shipped", read);
    lostElsewhere.incrementAndGet();
    read = remember(read, new ShipPosition(++maxFileSeq, null, 0, read.modifiedNanos));
    return false;
  }

  /** {@code f} holds fewer bytes than were read of it: it is read again from its start, under a new number. */
  private void truncated(SpoolFile f, long shipped) {
    noteGap("the audit file " + read.fileSeq + " shrank below the " + shipped + " bytes shipped of it (truncated); "
        + "it is shipped again from its start as file " + (maxFileSeq + 1), read);
    lostElsewhere.incrementAndGet();
    closeChannel();
    headKey = null; // its first bytes may differ now
    ShipPosition from = read;
    read = remember(from, newFile(maxFileSeq + 1, f));
  }

  /**
   * Sends the whole lines after the read position, each seal of the file once the line it ends with is sent,
   * stopping at the first refusal or failure. {@code finished}: the file is no longer written, so a last line
   * without its line end is sent too. Returns the records and seals sent, or -1 when the first send was refused
   * or the file's digest could not be looked at.
   */
  private int readAndSend(boolean finished) throws IOException {
    long size = channel.size();
    if (size < read.offset) {
      truncated(new SpoolFile(null, read.fileKey, size, read.modifiedNanos, false, null), read.offset);
      return 0;
    }
    buffer.clear();
    int n = channel.read(buffer, read.offset);
    if (!followDigest(finished, n > 0)) {
      return -1;
    }
    int sent = sendSeals();
    if (sent < 0 || n <= 0 || broken != null || !pendingGaps.isEmpty()) {
      return sent;
    }
    byte[] a = buffer.array();
    int start = 0;
    for (int i = 0; i < n; i++) {
      if (a[i] == '\n') {
        if (!sendLine(a, start, i - start, i - start + 1)) {
          return sent > 0 ? sent : -1;
        }
        sent++;
        start = i + 1;
        int s = sendSeals();
        if (s < 0) {
          return sent;
        }
        sent += s;
        if (broken != null || stopTimeIsUp() || !pendingGaps.isEmpty()) {
          return sent;
        }
      }
    }
    if (start == 0 && n == buffer.capacity() && buffer.capacity() < MAX_BUFFER_BYTES) {
      buffer = ByteBuffer.allocate(buffer.capacity() * 2); // a line longer than the buffer
      return sent + 1;
    }
    if (finished && start < n && read.offset + n == channel.size()) {
      if (!sendLine(a, start, n - start, n - start)) { // the file ends in part of a line
        return sent > 0 ? sent : -1;
      }
      sent++;
      int s = sendSeals();
      sent += Math.max(0, s);
    }
    return sent;
  }

  /**
   * Reads the seals written to the digest of the file being read since the last look, opening the digest first
   * if it is not open and may have come. Called after the file was read; a seal written since is read at the
   * next pass. Returns false when rotations kept renaming the files (nothing is sent then, so that no seal is
   * passed over).
   *
   * <p>The digest is looked for when the file is opened, then, while it is not found, each time the live file
   * has new records and a digest is at its name (the first seal of a new file is written just after the file;
   * not while this NameNode does not seal), and once the file is no longer written; then no more. A sealed live
   * file whose digest is not found costs one lstat per read.
   */
  private boolean followDigest(boolean finished, boolean newBytes) throws IOException {
    if (!seals.isOpen() && digestLook != LOOK_DONE && (digestLook == LOOK_NEVER || finished
        || newBytes && sealing && Files.exists(TrailNames.digest(dir.live()), LinkOption.NOFOLLOW_LINKS))) {
      SpoolDirectory.DigestLookup d = dir.openDigest(read.fileKey);
      if (!d.settled) {
        return false;
      }
      if (d.channel != null) {
        seals.open(d.channel, sealsFrom);
      } else {
        digestLook = finished ? LOOK_DONE : LOOK_LIVE;
      }
    }
    seals.fill();
    return true;
  }

  /**
   * Sends the seals that end at or before the read position, in the order of the digest. Returns how many, or
   * -1 when the first was refused (it is tried again from the same place).
   */
  private int sendSeals() throws IOException {
    int sent = 0;
    DigestFollower.PendingSeal s;
    while ((s = seals.peek()) != null && s.to <= read.offset) {
      long at = ShipPosition.global(read.fileSeq, s.to);
      if (at == refusedSealAt) { // refused by the broker as such: sending it again would refuse it again
        refusedSealAt = -1;
        seals.remove();
        noteGap("the seal ending at byte " + s.to + " of file " + read.fileSeq + " was refused by the broker; it is "
            + "not shipped: " + new String(s.line, StandardCharsets.UTF_8), read);
        return sent + 1; // dealt with: its gap record goes next
      }
      RecordHeaders h = ShipHeaders.of(ShipHeaders.SEAL, settings.source, epoch, nextSeq, read.fileSeq, s.to, format);
      if (!send(h, s.line, read, 0, false, false, at)) {
        return sent > 0 ? sent : -1;
      }
      seals.remove();
      sent++;
      if (broken != null) {
        break;
      }
    }
    return sent;
  }

  /** Sends one line ({@code length} bytes, {@code span} with its line end) at the read position. */
  private boolean sendLine(byte[] a, int from, int length, int span) {
    ShipPosition end = read.at(read.offset + span);
    int limit = settings.maxValueBytes;
    if (read.global() == refusedAt) {
      if (refusedTimes >= 2) { // refused even cut: skipped, and said so
        noteGap("the record at byte " + read.offset + " of file " + read.fileSeq + " (" + length + " bytes) was "
            + "refused by the broker twice, the second time cut to " + REFUSED_RECORD_CUT_BYTES + " bytes", read);
        read = end;
        refusedAt = -1;
        return true;
      }
      limit = REFUSED_RECORD_CUT_BYTES;
    }
    boolean cut = length > limit;
    byte[] value = new byte[cut ? limit : length];
    System.arraycopy(a, from, value, 0, value.length);
    RecordHeaders h = ShipHeaders.of(cut ? ShipHeaders.RECORD_CUT : ShipHeaders.RECORD, settings.source, epoch,
        nextSeq, read.fileSeq, read.offset, format);
    if (cut) {
      h.add(ShipHeaders.LENGTH, ShipHeaders.bytes(Integer.toString(length)));
    }
    if (!send(h, value, end, span, true, false, -1)) {
      return false;
    }
    read = end;
    return true;
  }

  private boolean sendControl(String type, byte[] value, ShipPosition at, ShipPosition end, boolean isGap) {
    return send(ShipHeaders.of(type, settings.source, epoch, nextSeq, at.fileSeq, at.offset, format), value, end,
        0, false, isGap, -1);
  }

  /**
   * Hands one record to the producer. False when the producer refused it at once (it then calls the callback
   * on this thread, or throws): nothing was sent, and the caller tries again later from the same place.
   * {@code sealAt}: for a seal, where it ends ({@link ShipPosition#global}), else -1.
   */
  private boolean send(RecordHeaders headers, byte[] value, ShipPosition end, long bytes, boolean isRecord,
      boolean isGap, long sealAt) {
    Sent cb = new Sent(generation, nextSeq, read.global(), end, bytes, isRecord, isGap, sealAt);
    syncRefusal = null;
    Exception refused;
    try {
      producer.send(new ProducerRecord<>(settings.topic, null, null, key, value, headers), cb);
      refused = syncRefusal;
    } catch (RuntimeException e) {
      refused = e;
    }
    if (refused != null) {
      sendErrors.incrementAndGet();
      lastSendRefused = true;
      warn("a send to topic " + settings.topic + " was refused", refused);
      return false;
    }
    nextSeq++;
    if (isRecord) {
      sentRecords.incrementAndGet();
    }
    sentBytes.addAndGet(bytes);
    return true;
  }

  /** Drops the first pending gap once Kafka has acknowledged it. */
  private void settleGap() {
    if (gapInFlightSeq >= 0 && gapAckedSeq >= gapInFlightSeq) {
      pendingGaps.pollFirst();
      gapsWaiting = pendingGaps.size();
      gapInFlightSeq = -1;
      gapsChanged = true; // the next checkpoint leaves it out
    }
  }

  /**
   * A gap record to send, at {@code at} (its identity); sent before the next record, kept (in the checkpoint too,
   * written at once) until acknowledged.
   */
  private void noteGap(String what, ShipPosition at) {
    LOG.warn("nnaudit: shipping {}: {}", context.file(), what);
    pendingGaps.addLast(new Gap("nnaudit: " + what, at));
    gapsWaiting = pendingGaps.size();
    gapsChanged = true;
    if (saved != null) {
      checkpoint(acknowledged != null ? acknowledged : saved, System.currentTimeMillis(), true);
    }
  }

  /** One gap record to send. Immutable. */
  private static final class Gap {
    final String what;
    final ShipPosition at;

    Gap(String what, ShipPosition at) {
      this.what = what;
      this.at = at;
    }
  }

  /**
   * Turns the files rotation deleted before they were shipped into gap records; a file this shipper has open
   * is read to its end all the same, so its loss is taken back.
   */
  private void announceLosses() {
    SpoolGuard.Loss loss;
    while ((loss = guard.nextUnseenLoss()) != null) {
      if (finishedKeys.contains(loss.fileKey)) { // read to its end already: no loss
        guard.forgive(loss);
        continue;
      }
      if (loss.fileKey.equals(read.fileKey)) {
        if (channel != null) { // opened before it was deleted (losses are looked at before opening): read whole
          guard.forgive(loss);
          continue;
        }
        deadKeys.add(loss.fileKey);
        // Not open: its inode may be given to a new file, which must not be read as this one.
        read = remember(read, new ShipPosition(++maxFileSeq, null, 0, read.modifiedNanos));
      }
      deadKeys.add(loss.fileKey);
      noteGap("an audit file (" + loss.fileKey + ") was deleted by rotation before it was shipped: " + loss.records
          + " records, " + loss.bytes + " bytes lost (nnaudit.kafka.spool.max.backups=" + guard.maxHeldBackups()
          + ")", read);
    }
  }

  /** Lag, files waiting, the guard's hold and the checkpoint, from one look at the files. */
  private void observe(long now) throws IOException {
    lastObserveMillis = now;
    ShipPosition a = acknowledged;
    List<SpoolFile> files = dir.list();
    int i = a.fileKey == null ? -1 : SpoolDirectory.indexOf(files, a.fileKey);
    long liveSeq = a.fileSeq;
    long liveSize = 0;
    if (!files.isEmpty() && files.get(files.size() - 1).live) {
      liveSeq = a.fileSeq + (i >= 0 ? files.size() - 1 - i : 0);
      liveSize = files.get(files.size() - 1).size;
    }
    lastLagBytes = lagOf(files, a)[0];
    lagClock.note(ShipPosition.global(liveSeq, liveSize), now);
    oldestUnackedSince = lagClock.oldestSince(a.global(), now);
    KafkaProducer<byte[], byte[]> p = producer;
    retries = retriesOfClosedProducers + (p == null ? 0 : producerRetries(p));
    if (now - lastCheckpointMillis >= settings.checkpointIntervalMs || !String.valueOf(a.fileKey).equals(
        String.valueOf(saved.fileKey))) {
      checkpoint(a, now, false);
    }
  }

  private static long producerRetries(KafkaProducer<byte[], byte[]> p) {
    try {
      for (Map.Entry<MetricName, ? extends Metric> e : p.metrics().entrySet()) {
        if ("record-retry-total".equals(e.getKey().name()) && "producer-metrics".equals(e.getKey().group())) {
          Object v = e.getValue().metricValue();
          return v instanceof Number ? ((Number) v).longValue() : 0;
        }
      }
    } catch (RuntimeException e) {
      LOG.debug("nnaudit: reading the producer's metrics failed", e);
    }
    return 0;
  }

  /**
   * Writes the acknowledged position {@code a} (when it moved, or {@code force}: a new file number; a position
   * without a file keeps the last one written, with the new number), then lets the guard release what is older.
   * Until a position with a file has been written, the guard holds every file.
   */
  private void checkpoint(ShipPosition a, long now, boolean force) {
    lastCheckpointMillis = now;
    ShipPosition p = a.fileKey != null ? a : saved;
    if (p.fileKey != null && (force || gapsChanged || p.global() != saved.global()
        || maxFileSeq != savedMaxFileSeq)) {
      try {
        if (refreshHead(p)) {
          List<ShipCheckpoint.PendingGap> gaps = new ArrayList<>();
          for (Gap g : pendingGaps) {
            gaps.add(new ShipCheckpoint.PendingGap(g.at.fileSeq, g.at.offset, g.what));
          }
          new ShipCheckpoint(p, maxFileSeq, headLength, headHash, now, gaps).save(settings.checkpoint,
              settings.source);
          gapsChanged = false;
          if (!p.fileKey.equals(saved.fileKey)) {
            finishedKeys.clear(); // files before the new one go by normal retention now
          }
          saved = p;
          savedMaxFileSeq = maxFileSeq;
        }
      } catch (IOException e) {
        warn("could not write the checkpoint " + settings.checkpoint + "; a restart would resend more", e);
      }
    }
    if (saved.fileKey == null) {
      guard.holdEveryFile();
    } else {
      guard.holdFrom(saved.fileKey, saved.offset);
    }
  }

  /**
   * The hash of the acknowledged file's first bytes (up to {@link ShipCheckpoint#HEAD_BYTES}; the files only
   * grow, so they stay as hashed); false if the file is not to be found now.
   */
  private boolean refreshHead(ShipPosition a) throws IOException {
    if (a.fileKey.equals(headKey) && headLength >= ShipCheckpoint.HEAD_BYTES) {
      return true;
    }
    List<SpoolFile> files = dir.list();
    int i = SpoolDirectory.indexOf(files, a.fileKey);
    if (i < 0) {
      return false;
    }
    int want = (int) Math.min(ShipCheckpoint.HEAD_BYTES, files.get(i).size);
    if (a.fileKey.equals(headKey) && headLength >= want) {
      return true;
    }
    try (InputStream in = Channels.newInputStream(FileChannel.open(files.get(i).path, StandardOpenOption.READ))) {
      headHash = FileHead.sha256(in, want);
    } catch (NoSuchFileException e) {
      return false;
    }
    headKey = a.fileKey;
    headLength = want;
    return true;
  }

  private void finish() {
    long left = Math.max(0, TimeUnit.NANOSECONDS.toMillis(stopDeadlineNanos - System.nanoTime()));
    closeProducer(Duration.ofMillis(stopping ? left : 0)); // waits for acknowledgements in flight
    closeChannel();
    ShipPosition a = acknowledged;
    checkpoint(a, System.currentTimeMillis(), false);
    LOG.info("nnaudit: stopped shipping {} to Kafka at {}: {}", context.file(), a, stats());
  }

  private void closeChannel() {
    seals.close();
    if (channel != null) {
      try {
        channel.close();
      } catch (IOException e) {
        LOG.debug("nnaudit: closing {} failed", context.file(), e);
      }
      channel = null;
    }
  }

  private void warn(String what, Throwable cause) {
    long now = System.currentTimeMillis();
    if (now - lastWarnMillis >= WARN_INTERVAL_MS) {
      lastWarnMillis = now;
      LOG.warn("nnaudit: shipping {} to Kafka topic {}: {} ({}); {} send errors since start-up, the records wait in "
          + "the file (logged at most once a minute)", context.file(), settings.topic, what, String.valueOf(cause),
          sendErrors.get());
    }
  }

  // ---------------------------------------------------------------- the producer's I/O thread

  /** The acknowledgement of one record: moves {@link #acknowledged} on only in the order of sending. */
  private final class Sent implements Callback {
    private final int gen;
    private final long seq;
    /** Where the record starts ({@link ShipPosition#global}). */
    private final long start;
    private final ShipPosition end;
    private final long bytes;
    private final boolean isRecord;
    private final boolean isGap;
    /** For a seal, where it ends ({@link ShipPosition#global}); else -1. */
    private final long sealAt;

    Sent(int gen, long seq, long start, ShipPosition end, long bytes, boolean isRecord, boolean isGap, long sealAt) {
      this.gen = gen;
      this.seq = seq;
      this.start = start;
      this.end = end;
      this.bytes = bytes;
      this.isRecord = isRecord;
      this.isGap = isGap;
      this.sealAt = sealAt;
    }

    @Override
    public void onCompletion(RecordMetadata metadata, Exception e) {
      if (e != null && Thread.currentThread() == thread) {
        syncRefusal = e; // refused inside send(): nothing was sent
        return;
      }
      if (gen != generation) {
        return;
      }
      if (e != null && isRefusedRecord(e)) { // this record itself was refused (its neighbours fail otherwise)
        if (sealAt >= 0) {
          if (refusedSealSeen < 0) {
            refusedSealSeen = sealAt;
          }
        } else if (refusedSeen < 0) {
          refusedSeen = start;
        }
      }
      if (broken != null) {
        return;
      }
      if (e != null || seq != nextAckSeq) {
        sendErrors.incrementAndGet();
        broken = e != null ? e : new IllegalStateException("acknowledged out of order: " + seq + ", expected "
            + nextAckSeq);
        return;
      }
      nextAckSeq = seq + 1;
      if (isGap) {
        gapAckedSeq = seq;
      }
      acknowledged = end;
      if (isRecord) {
        shippedRecords.incrementAndGet();
      }
      shippedBytes.addAndGet(bytes);
      lastAckMillis = System.currentTimeMillis();
    }
  }

  @Override
  public String toString() {
    return "kafka(" + settings.topic + " at " + settings.bootstrapServers + " as " + settings.source + ")";
  }
}
