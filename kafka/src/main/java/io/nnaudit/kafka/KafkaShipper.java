package io.nnaudit.kafka;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import io.nnaudit.ship.ShipStats;
import io.nnaudit.ship.Shipper;
import io.nnaudit.ship.ShipperContext;
import io.nnaudit.ship.SpoolGuard;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * the spool, so an outage, a slow broker or a missing topic only makes the lag grow.</li>
 * <li>What drops: nothing silently. A failed send (the delivery timeout passed, an authorization error) makes
 * the thread close the producer, go back to the last acknowledged record, and send again from there after
 * {@code nnaudit.kafka.retry.backoff.ms}: records after it may reach Kafka twice, with the same identity. A
 * file that rotation had to delete before it was shipped ({@code nnaudit.kafka.spool.max.backups} reached) is
 * counted by the {@link SpoolGuard} and announced by a gap record.</li>
 * <li>Progress: the acknowledged position advances only with acknowledgements that arrive in the order of
 * sending (checked by sequence, so a gap can never be skipped over); it is written to the checkpoint every
 * {@code nnaudit.kafka.checkpoint.interval.ms} and at the stop, and tells the guard which files rotation must
 * keep. A restart resumes there.</li>
 * <li>Stop ({@link #stop}), after the pipeline's writer has finished: the thread ships what the file holds until
 * it is caught up or the time given has passed, closes the producer within what is left of it (waiting for
 * acknowledgements in flight), writes the checkpoint and ends.</li>
 * </ul>
 * Who owns what: the reading state (position, channel, buffer, producer, sequence) belongs to the shipper's
 * thread. {@link #acknowledged} and {@link #nextAckSeq} are written by the producer's I/O thread in its
 * callbacks (for the current {@link #generation} only) and read by the shipper's thread and the metrics; the
 * counters and gauges are volatile or atomic, read by the metrics.
 */
public final class KafkaShipper implements Shipper {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaShipper.class);
  private static final int FIRST_BUFFER_BYTES = 256 * 1024;
  private static final int MAX_BUFFER_BYTES = 64 * 1024 * 1024;
  private static final long OBSERVE_INTERVAL_MS = 250;
  private static final long WARN_INTERVAL_MS = 60_000;

  private final ShipperSettings settings;
  private final SpoolDirectory dir;
  private final SpoolGuard guard;
  private final ShipperContext context;
  private final long epoch = System.currentTimeMillis();
  private final byte[] key;
  private final String format;
  private final Thread thread;

  // The shipper's thread only.
  private KafkaProducer<byte[], byte[]> producer;
  private ShipPosition read;
  private FileChannel channel;
  private ByteBuffer buffer = ByteBuffer.allocate(FIRST_BUFFER_BYTES);
  private long nextSeq;
  private String pendingGap;
  private long lostFilesAnnounced;
  private long lastObserveMillis;
  private long lastCheckpointMillis;
  private long checkpointed = -1;
  private String headKey;
  private int headLength = -1;
  private String headHash;
  private long retriesOfClosedProducers;
  private long lastWarnMillis = Long.MIN_VALUE / 2;
  private final LagClock lagClock = new LagClock();

  // Shared, as the design note says.
  private volatile int generation;
  private long nextAckSeq;
  private volatile ShipPosition acknowledged;
  private volatile Exception broken;
  private final AtomicLong shippedRecords = new AtomicLong();
  private final AtomicLong shippedBytes = new AtomicLong();
  private final AtomicLong sendErrors = new AtomicLong();
  private final AtomicLong lostElsewhere = new AtomicLong();
  private volatile long lastAckMillis;
  /** -1 until the first look at the files, like {@link #filesWaiting}. */
  private volatile long lagBytes = -1;
  /** When the oldest unacknowledged record was first seen (ms since the epoch), 0 for none; see {@link LagClock}. */
  private volatile long oldestUnackedSince;
  private volatile long filesWaiting = -1;
  private volatile long retries;
  private final long backlogRecords;
  private volatile boolean stopping;
  private volatile long stopDeadlineNanos;

  /** Checks the settings, reads the checkpoint and tells the guard which files to keep; does not start. */
  public KafkaShipper(ShipperContext context) {
    this.context = context;
    this.settings = ShipperSettings.fromConf(context.conf(), context.file());
    this.dir = new SpoolDirectory(context.file().toPath(), context.maxBackups());
    this.guard = context.spoolGuard();
    this.key = ShipHeaders.bytes(settings.source);
    this.format = context.recordFormat();
    this.lostFilesAnnounced = guard.lostFiles();
    try {
      this.read = startPosition(ShipCheckpoint.load(settings.checkpoint));
      this.acknowledged = read;
      guard.holdFrom(read.fileKey, read.offset);
      this.backlogRecords = countBacklog(read);
    } catch (IOException e) {
      throw new IllegalStateException("nnaudit: cannot start shipping " + context.file() + " to Kafka: " + e, e);
    }
    this.thread = new Thread(this::run, "nnaudit-kafka-shipper[" + context.file().getName() + "]");
    thread.setDaemon(true);
    LOG.info("nnaudit: shipping {} to Kafka topic {} at {} as {} (epoch {}), from {}; {} records waiting",
        context.file(), settings.topic, settings.bootstrapServers, settings.source, epoch, read, backlogRecords);
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
      try (InputStream in = java.nio.file.Files.newInputStream(files.get(i).path)) {
        if (cp.sameHead(in)) {
          headKey = cp.position.fileKey;
          headLength = cp.headLength;
          headHash = cp.headHash;
          return cp.position;
        }
      }
    }
    pendingGap = "the audit file " + cp.position.fileSeq + " (" + cp.position.fileKey + ") was gone at start-up "
        + "from byte " + cp.position.offset + " on; what it held past that byte was never shipped";
    lostElsewhere.incrementAndGet();
    LOG.warn("nnaudit: {}", pendingGap);
    return new ShipPosition(cp.position.fileSeq + 1, null, 0, cp.position.modifiedNanos);
  }

  /** Lines in the files from {@code from} on: the records waiting at start-up, before the writer starts. */
  private long countBacklog(ShipPosition from) throws IOException {
    long lines = 0;
    boolean counting = false;
    for (SpoolFile f : dir.list()) {
      long start = 0;
      if (f.key.equals(from.fileKey)) {
        counting = true;
        start = from.offset;
      } else if (!counting && from.fileKey == null && f.modifiedNanos > from.modifiedNanos) {
        counting = true;
      }
      if (counting) {
        lines += countLines(f, start);
      }
    }
    return lines;
  }

  private static long countLines(SpoolFile f, long start) throws IOException {
    long lines = 0;
    try (FileChannel ch = FileChannel.open(f.path, StandardOpenOption.READ)) {
      ByteBuffer b = ByteBuffer.allocate(1 << 16);
      long pos = start;
      int n;
      while ((n = ch.read(b, pos)) > 0) {
        byte[] a = b.array();
        for (int i = 0; i < n; i++) {
          if (a[i] == '\n') {
            lines++;
          }
        }
        pos += n;
        b.clear();
      }
    }
    return lines;
  }

  @Override
  public void start() {
    thread.start();
  }

  @Override
  public void stop(long timeoutMs) {
    if (!thread.isAlive() && !stopping) {
      stopping = true;
      return;
    }
    stopDeadlineNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    stopping = true;
    LockSupport.unpark(thread);
    long maxBlock = Long.parseLong(settings.producer.getProperty("max.block.ms"));
    try {
      thread.join(timeoutMs + maxBlock + 2000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (thread.isAlive()) {
      LOG.warn("nnaudit: the Kafka shipper of {} did not stop in time; it goes on until the JVM exits",
          context.file());
    }
  }

  @Override
  public ShipStats stats() {
    long last = lastAckMillis;
    long since = oldestUnackedSince;
    long now = System.currentTimeMillis();
    return new ShipStats(shippedRecords.get(), shippedBytes.get(),
        Math.max(0, backlogRecords + context.recordsWritten() - guard.lostRecords() - shippedRecords.get()), lagBytes,
        since == 0 ? 0 : Math.max(0, now - since),
        sendErrors.get(), retries, last == 0 ? -1 : now - last, filesWaiting,
        guard.lostFiles() + lostElsewhere.get(), guard.lostBytes());
  }

  // ---------------------------------------------------------------- the shipper's thread

  private void run() {
    try {
      while (!(stopping && (caughtUp() || System.nanoTime() - stopDeadlineNanos >= 0))) {
        if (broken != null) {
          recover();
          continue;
        }
        if (producer == null && !openProducer()) {
          pause(settings.retryBackoffMs);
          continue;
        }
        boolean progressed = announceLosses() && step();
        long now = System.currentTimeMillis();
        if (!progressed || now - lastObserveMillis >= OBSERVE_INTERVAL_MS) {
          observe(now);
        }
        if (!progressed) {
          pause(stopping ? Math.min(10, settings.pollIntervalMs) : settings.pollIntervalMs);
        }
      }
    } catch (Throwable t) {
      LOG.error("nnaudit: the Kafka shipper of {} failed; shipping stops until the next start, the records stay "
          + "in the file", context.file(), t);
    } finally {
      finish();
    }
  }

  private boolean caughtUp() {
    return broken == null && pendingGap == null && acknowledged.global() == read.global() && readableBytes() == 0;
  }

  private long readableBytes() {
    try {
      return channel == null ? 0 : Math.max(0, channel.size() - read.offset);
    } catch (IOException e) {
      return 0;
    }
  }

  private void pause(long ms) {
    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
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
    warn("a record was not acknowledged; resending from " + acknowledged + " after "
        + settings.retryBackoffMs + " ms", cause);
    closeChannel();
    read = acknowledged;
    broken = null;
    pause(settings.retryBackoffMs);
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
    if (pendingGap != null) {
      if (!sendControl(ShipHeaders.GAP, ShipHeaders.bytes("nnaudit: " + pendingGap), read, read)) {
        return false;
      }
      pendingGap = null;
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
    if (sent != 0) {
      return sent > 0;
    }
    if (!finished) {
      return false;
    }
    SpoolFile next = successor();
    if (next == null) {
      return false;
    }
    ShipPosition after = new ShipPosition(read.fileSeq + 1, next.key, 0, next.modifiedNanos);
    if (!sendControl(ShipHeaders.FILE_END, new byte[0], read, after)) {
      return false;
    }
    closeChannel();
    read = after;
    return true;
  }

  /** No file was known: the oldest newer than the last one known (any, at the first start). */
  private boolean pickFirstFile() throws IOException {
    for (SpoolFile f : dir.list()) {
      if (f.modifiedNanos > read.modifiedNanos) {
        read = new ShipPosition(read.fileSeq, f.key, 0, f.modifiedNanos);
        return true;
      }
    }
    return false;
  }

  /**
   * The file written after the one being read, which is no longer live. Found by its place in the rotation;
   * if the file being read has gone from it (deleted, or between two renames of a rotation), the oldest file
   * modified after it.
   */
  private SpoolFile successor() throws IOException {
    List<SpoolFile> files = dir.list();
    int i = SpoolDirectory.indexOf(files, read.fileKey);
    if (i >= 0) {
      return i + 1 < files.size() ? files.get(i + 1) : null;
    }
    long seen = read.modifiedNanos;
    for (SpoolFile f : files) {
      if (f.modifiedNanos > seen) {
        return f;
      }
    }
    return null;
  }

  /** Opens the file {@code read} is in; if it is gone, announces the gap and moves to its successor. */
  private boolean openRead() throws IOException {
    for (int attempt = 0; attempt < 3; attempt++) {
      List<SpoolFile> files = dir.list();
      int i = SpoolDirectory.indexOf(files, read.fileKey);
      if (i >= 0) {
        SpoolFile f = files.get(i);
        FileChannel ch = FileChannel.open(f.path, StandardOpenOption.READ);
        SpoolFile again = i == files.size() - 1 ? dir.liveFile() : null;
        if (again != null && !again.key.equals(f.key)) {
          ch.close(); // rotated between the look and the open
          continue;
        }
        channel = ch;
        read = new ShipPosition(read.fileSeq, read.fileKey, read.offset, Math.max(read.modifiedNanos, f.modifiedNanos));
        return true;
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50)); // a rotation may be between two renames
    }
    pendingGap = "the audit file " + read.fileSeq + " (" + read.fileKey + ") was deleted from byte " + read.offset
        + " on before it was shipped";
    lostElsewhere.incrementAndGet();
    LOG.warn("nnaudit: {}", pendingGap);
    read = new ShipPosition(read.fileSeq + 1, null, 0, read.modifiedNanos);
    return false;
  }

  /**
   * Sends the whole lines after the read position. {@code finished}: the file is no longer written, so a last
   * line without its line end is sent too. Returns the records sent, or -1 when a send was refused.
   */
  private int readAndSend(boolean finished) throws IOException {
    buffer.clear();
    int n = channel.read(buffer, read.offset);
    if (n <= 0) {
      return 0;
    }
    byte[] a = buffer.array();
    int start = 0;
    int sent = 0;
    for (int i = 0; i < n; i++) {
      if (a[i] == '\n') {
        if (!sendLine(a, start, i - start, i - start + 1)) {
          return sent > 0 ? sent : -1;
        }
        sent++;
        start = i + 1;
      }
    }
    if (sent == 0 && start == 0 && n == buffer.capacity() && buffer.capacity() < MAX_BUFFER_BYTES) {
      buffer = ByteBuffer.allocate(buffer.capacity() * 2); // a line longer than the buffer
      return 1;
    }
    if (finished && start < n && read.offset + n == channel.size()) {
      if (!sendLine(a, start, n - start, n - start)) { // the file ends in part of a line
        return sent > 0 ? sent : -1;
      }
      sent++;
    }
    return sent;
  }

  /** Sends one line ({@code length} bytes, {@code span} with its line end) at the read position. */
  private boolean sendLine(byte[] a, int from, int length, int span) {
    boolean cut = length > settings.maxValueBytes;
    byte[] value = new byte[cut ? settings.maxValueBytes : length];
    System.arraycopy(a, from, value, 0, value.length);
    ShipPosition end = read.at(read.offset + span);
    org.apache.kafka.common.header.internals.RecordHeaders h = ShipHeaders.of(
        cut ? ShipHeaders.RECORD_CUT : ShipHeaders.RECORD, settings.source, epoch, nextSeq, read.fileSeq,
        read.offset, format);
    if (cut) {
      h.add(ShipHeaders.LENGTH, ShipHeaders.bytes(Integer.toString(length)));
    }
    if (!send(h, value, end, span, true)) {
      return false;
    }
    read = end;
    return true;
  }

  private boolean sendControl(String type, byte[] value, ShipPosition at, ShipPosition end) {
    return send(ShipHeaders.of(type, settings.source, epoch, nextSeq, at.fileSeq, at.offset, format), value, end,
        0, false);
  }

  private boolean send(org.apache.kafka.common.header.internals.RecordHeaders headers, byte[] value,
      ShipPosition end, long bytes, boolean isRecord) {
    Sent cb = new Sent(generation, nextSeq, end, bytes, isRecord);
    try {
      producer.send(new ProducerRecord<>(settings.topic, null, null, key, value, headers), cb);
    } catch (RuntimeException e) { // no metadata or no buffer space within max.block.ms; nothing was sent
      sendErrors.incrementAndGet();
      warn("a send to topic " + settings.topic + " was refused", e);
      return false;
    }
    nextSeq++;
    return true;
  }

  /** A gap record for every file rotation deleted before it was shipped since the last one announced. */
  private boolean announceLosses() {
    long lost = guard.lostFiles();
    if (lost > lostFilesAnnounced) {
      String what = (lost - lostFilesAnnounced) + " audit file(s) were deleted by rotation before they were "
          + "shipped (" + guard.lostBytes() + " unshipped bytes lost since start-up; nnaudit.kafka.spool.max.backups="
          + guard.maxHeldBackups() + ")";
      if (!sendControl(ShipHeaders.GAP, ShipHeaders.bytes("nnaudit: " + what), read, read)) {
        return false;
      }
      lostFilesAnnounced = lost;
    }
    return true;
  }

  /** Lag, files waiting, the guard's hold and the checkpoint, from one look at the files. */
  private void observe(long now) throws IOException {
    lastObserveMillis = now;
    ShipPosition a = acknowledged;
    guard.holdFrom(a.fileKey, a.offset);
    List<SpoolFile> files = dir.list();
    int i = a.fileKey == null ? -1 : SpoolDirectory.indexOf(files, a.fileKey);
    long bytes = 0;
    long waiting = 0;
    long liveSeq = a.fileSeq;
    long liveSize = 0;
    for (int j = 0; j < files.size(); j++) {
      SpoolFile f = files.get(j);
      boolean after = i >= 0 ? j >= i : f.modifiedNanos > a.modifiedNanos;
      if (!after) {
        continue;
      }
      long unacked = f.key.equals(a.fileKey) ? f.size - a.offset : f.size;
      if (unacked > 0) {
        bytes += unacked;
        waiting++;
      }
      if (f.live) {
        liveSeq = a.fileSeq + (i >= 0 ? j - i : 0);
        liveSize = f.size;
      }
    }
    lagBytes = bytes;
    filesWaiting = waiting;
    lagClock.note(ShipPosition.global(liveSeq, liveSize), now);
    oldestUnackedSince = lagClock.oldestSince(a.global(), now);
    KafkaProducer<byte[], byte[]> p = producer;
    retries = retriesOfClosedProducers + (p == null ? 0 : producerRetries(p));
    if (now - lastCheckpointMillis >= settings.checkpointIntervalMs) {
      checkpoint(a, now);
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

  private void checkpoint(ShipPosition a, long now) {
    lastCheckpointMillis = now;
    if (a.fileKey == null || a.global() == checkpointed) {
      return;
    }
    try {
      if (!refreshHead(a)) {
        return; // between two renames of a rotation: the next interval writes it
      }
      new ShipCheckpoint(a, headLength, headHash, now).save(settings.checkpoint, settings.source);
      checkpointed = a.global();
    } catch (IOException e) {
      warn("could not write the checkpoint " + settings.checkpoint + "; a restart would resend more", e);
    }
  }

  /**
   * The hash of the acknowledged file's first bytes (up to {@link ShipCheckpoint#HEAD_BYTES}, all shipped);
   * false if the file is not to be found now.
   */
  private boolean refreshHead(ShipPosition a) throws IOException {
    int want = (int) Math.min(ShipCheckpoint.HEAD_BYTES, a.offset);
    if (a.fileKey.equals(headKey) && headLength >= want) {
      return true;
    }
    List<SpoolFile> files = dir.list();
    int i = SpoolDirectory.indexOf(files, a.fileKey);
    if (i < 0) {
      return false;
    }
    try (InputStream in = Channels.newInputStream(FileChannel.open(files.get(i).path, StandardOpenOption.READ))) {
      headHash = FileHead.sha256(in, want);
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
    checkpoint(a, System.currentTimeMillis() + settings.checkpointIntervalMs);
    guard.holdFrom(a.fileKey, a.offset);
    LOG.info("nnaudit: stopped shipping {} to Kafka at {}: {}", context.file(), a, stats());
  }

  private void closeChannel() {
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
    private final ShipPosition end;
    private final long bytes;
    private final boolean isRecord;

    Sent(int gen, long seq, ShipPosition end, long bytes, boolean isRecord) {
      this.gen = gen;
      this.seq = seq;
      this.end = end;
      this.bytes = bytes;
      this.isRecord = isRecord;
    }

    @Override
    public void onCompletion(RecordMetadata metadata, Exception e) {
      if (gen != generation || broken != null) {
        return;
      }
      if (e != null || seq != nextAckSeq) {
        sendErrors.incrementAndGet();
        broken = e != null ? e : new IllegalStateException("acknowledged out of order: " + seq + ", expected "
            + nextAckSeq);
        return;
      }
      nextAckSeq = seq + 1;
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
