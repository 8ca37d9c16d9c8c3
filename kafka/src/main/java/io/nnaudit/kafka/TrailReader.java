package io.nnaudit.kafka;

import java.io.File;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;

import org.apache.kafka.common.header.internals.RecordHeaders;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.nnaudit.ship.SpoolGuard;
import io.nnaudit.trail.LineEnds;
import io.nnaudit.trail.Lstat;

/**
 * Follows the audit files, oldest first, by their identity (device and inode), and sends their lines: the live
 * file and the rotated files not yet finished, each read to its end and closed by a {@code file-end} record
 * before the next; with {@code nnaudit.kafka.record.lines} above 1, the whole lines of a pass together in
 * {@code records} records ({@link LinesTogether}). A line longer than the producer's {@code max.request.size}
 * allows is sent cut ({@code record-cut}); a line the broker refuses as too large or invalid is sent again cut
 * to 1 KiB, and refused again, skipped with a gap record; the lines of a {@code records} record it refuses are
 * sent again alone. A file that rotation deleted before it was shipped, a file gone from the directory
 * and a file that shrank are announced by gap records ({@link GapLedger}); a shrunk file is read again from its
 * start under a new number ({@link FileNumbers}).
 *
 * <p>Design note. Used by the shipper's thread only (checked by {@code assert} in {@link #step}): the read
 * position, the open file, the buffer and the record refused are its; nothing here is read by another thread.
 * The audit file is read through a {@link RandomAccessFile}, not a channel: an interrupt of the thread from
 * outside closes a channel under the read it lands in, and then the file would have to be found and opened again.
 * It blocks that thread on the disk and, through {@link OrderedSender}, in {@code send}. Each step sends at most
 * one buffer of lines, and stops early once a send failed or the stop's time is up. Logs as
 * {@link KafkaShipper}, the shipper's one logger name.
 */
final class TrailReader {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaShipper.class);
  private static final int FIRST_BUFFER_BYTES = 256 * 1024;
  private static final int MAX_BUFFER_BYTES = 64 * 1024 * 1024;
  /** A record the broker refuses as too large is sent again cut to this many bytes. */
  private static final int REFUSED_RECORD_CUT_BYTES = 1024;

  private final Thread owner;
  private final File file;
  private final int maxValueBytes;
  /** Which lines go together in one record ({@code nnaudit.kafka.record.lines}). */
  private final LinesTogether together;
  private final SpoolDirectory dir;
  private final SpoolGuard guard;
  private final OrderedSender sender;
  private final Acknowledgements acks;
  private final SealForwarder seals;
  private final GapLedger gaps;
  private final FileNumbers numbers;
  private final Checkpointer checkpointer;
  private final StopSignal stop;

  private ShipPosition read;
  /** The file being read, or null; never a channel (see the design note). */
  private RandomAccessFile openFile;
  private ByteBuffer buffer = ByteBuffer.allocate(FIRST_BUFFER_BYTES);
  /** A record refused as too large: its position, and how often it was refused. */
  private long refusedAt = -1;
  private int refusedTimes;
  /** Whether the last step read the live file to the end it had then, and sent every whole line of it. */
  private boolean atLiveEnd;

  TrailReader(Thread owner, File file, int maxValueBytes, LinesTogether together, SpoolDirectory dir,
      SpoolGuard guard, OrderedSender sender, Acknowledgements acks, SealForwarder seals, GapLedger gaps,
      FileNumbers numbers, Checkpointer checkpointer, StopSignal stop) {
    this.owner = owner;
    this.file = file;
    this.maxValueBytes = maxValueBytes;
    this.together = together;
    this.dir = dir;
    this.guard = guard;
    this.sender = sender;
    this.acks = acks;
    this.seals = seals;
    this.gaps = gaps;
    this.numbers = numbers;
    this.checkpointer = checkpointer;
    this.stop = stop;
  }

  /** Where reading stands: everything before it was handed to the producer. */
  ShipPosition position() {
    return read;
  }

  void begin(ShipPosition start) {
    read = start;
  }

  /**
   * At a rewind: reads again from {@code to}; {@code refused}, the start of a line the broker refused, or -1;
   * {@code refusedTogether}, the end of a {@code records} record it refused ({@link ShipPosition#global}), or -1:
   * no line of it was refused alone, so its lines go alone, uncut, and lines together in fewer bytes from then on.
   */
  void rewind(ShipPosition to, long refused, long refusedTogether) {
    if (refusedTogether >= 0) {
      int mostBytes = together.refused(refusedTogether);
      LOG.warn("nnaudit: shipping {}: the broker refused a record of several lines, ending at byte {} of file {} "
          + "(the topic's max.message.bytes below the producer's batch.size?); its lines go alone, and lines go "
          + "together in at most {} bytes until the next start", file, ShipPosition.offsetOf(refusedTogether),
          ShipPosition.fileOf(refusedTogether), mostBytes);
    }
    if (refused >= 0) {
      refusedTimes = refusedAt == refused ? refusedTimes + 1 : 1;
      refusedAt = refused;
    }
    close();
    read = to;
  }

  /**
   * Whether everything there is was read, from a look at the files now (a stop asks it at each pass): the open
   * file has no byte past the position and no seal waiting, and is the live file, since a rotated one read to
   * its end has a successor to read. With no file open, only when no file was ever found to read and none has a
   * byte now: a file known is opened by the next pass, which sends its seals (after a rewind, or at the next
   * file, possibly empty but for its seals).
   */
  boolean drained() throws IOException {
    if (openFile == null) { // a file to read is opened, and its digest looked at, by the next pass
      return read.fileKey == null && ShipLag.of(dir.list(), read)[0] == 0;
    }
    if (readableBytes() != 0 || seals.waiting(read.offset)) {
      return false;
    }
    SpoolFile live = dir.liveFile();
    return live != null && live.key.equals(read.fileKey);
  }

  /**
   * Whether the last {@link #step} read the live file to the end it had then and sent every whole line read: the
   * next step would find only what was written since. The shipper then waits its poll interval, so that it
   * reads bursts of lines rather than chasing each write.
   */
  boolean atLiveEnd() {
    return atLiveEnd;
  }

  /** The bytes of the open file past the position; a failed look throws (it is not "nothing left"). */
  private long readableBytes() throws IOException {
    return openFile == null ? 0 : Math.max(0, openFile.length() - read.offset);
  }

  void close() {
    seals.close();
    if (openFile != null) {
      try {
        openFile.close();
      } catch (IOException e) {
        LOG.debug("nnaudit: closing {} failed", file, e);
      }
      openFile = null;
    }
  }

  /** One unit of reading; returns whether it made progress (sent something, or moved to the next file). */
  boolean step() throws IOException {
    assert Thread.currentThread() == owner;
    atLiveEnd = false;
    if (read.fileKey == null) {
      return pickFirstFile();
    }
    if (openFile == null && !openRead()) {
      return false;
    }
    SpoolFile live = dir.liveFile();
    boolean finished = live == null || !live.key.equals(read.fileKey); // looked at before the last read
    int sent = readAndSend(finished);
    atLiveEnd &= !finished;
    if (sent != 0 || acks.isBroken() || openFile == null) {
      return sent > 0;
    }
    if (!finished) {
      return false;
    }
    SpoolFile next = successor();
    if (next == null) {
      return false;
    }
    seals.dropPastEnd(read);
    ShipPosition after = checkpointer.newFile(read.fileSeq + 1, next);
    if (!sender.sendFileEnd(sender.headers(ShipHeaders.FILE_END, read.fileSeq, read.offset), read, after)) {
      return false;
    }
    close();
    numbers.finished(read.fileKey);
    read = after;
    return true;
  }

  /**
   * Turns the files rotation deleted before they were shipped into gap records; a file this shipper has open
   * is read to its end all the same, so its loss is taken back.
   */
  void announceLosses() {
    SpoolGuard.Loss loss;
    while ((loss = guard.nextUnseenLoss()) != null) {
      if (numbers.isFinished(loss.fileKey)) { // read to its end already: no loss
        guard.forgive(loss);
        continue;
      }
      if (loss.fileKey.equals(read.fileKey)) {
        if (openFile != null) { // opened before it was deleted (losses are looked at before opening): read whole
          guard.forgive(loss);
          continue;
        }
        numbers.died(loss.fileKey);
        // Not open: its inode may be given to a new file, which must not be read as this one.
        read = numbers.renumber(read, new ShipPosition(numbers.next(), null, 0, read.modifiedNanos));
      }
      numbers.died(loss.fileKey);
      gaps.note("an audit file (" + loss.fileKey + ") was deleted by rotation before it was shipped: " + loss.records
          + " records, " + loss.bytes + " bytes lost (nnaudit.kafka.spool.max.backups=" + guard.maxHeldBackups()
          + ")", read);
    }
  }

  /** No file was known: the oldest newer than the last one known (any, at the first start). */
  private boolean pickFirstFile() throws IOException {
    for (SpoolFile f : dir.list()) {
      if (f.modifiedNanos > read.modifiedNanos) {
        read = checkpointer.newFile(read.fileSeq, f);
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
    for (int attempt = 0; attempt < 5 && !numbers.isDead(read.fileKey); attempt++) {
      List<SpoolFile> files = dir.list();
      int i = SpoolDirectory.indexOf(files, read.fileKey);
      if (i < 0) {
        break;
      }
      SpoolFile f = files.get(i);
      RandomAccessFile ch;
      try {
        ch = new RandomAccessFile(f.path.toFile(), "r");
      } catch (FileNotFoundException e) {
        if (OpenFailure.missing(f.path, e)) {
          continue; // renamed since the listing
        }
        throw e;
      }
      if (!read.fileKey.equals(Lstat.key(f.path))) {
        ch.close(); // a rotation renamed another file to that name meanwhile
        continue;
      }
      if (ch.length() < read.offset) {
        ch.close();
        truncated(f, read.offset);
        return false;
      }
      openFile = ch;
      read = new ShipPosition(read.fileSeq, read.fileKey, read.offset, Math.max(read.modifiedNanos, f.modifiedNanos));
      seals.fileOpened(f.uid);
      return true;
    }
    gaps.noteLostFile("the audit file " + read.fileSeq + " (" + read.fileKey + ") was deleted from byte "
        + read.offset + " on before it was shipped", read);
    read = numbers.renumber(read, new ShipPosition(numbers.next(), null, 0, read.modifiedNanos));
    return false;
  }

  /** {@code f} holds fewer bytes than were read of it: it is read again from its start, under a new number. */
  private void truncated(SpoolFile f, long shipped) {
    gaps.noteLostFile("the audit file " + read.fileSeq + " shrank below the " + shipped + " bytes shipped of it "
        + "(truncated); it is shipped again from its start as file " + (numbers.max() + 1), read);
    close();
    checkpointer.forgetHead(); // its first bytes may differ now
    ShipPosition from = read;
    read = numbers.renumber(from, checkpointer.newFile(numbers.max() + 1, f));
  }

  /**
   * Sends the whole lines after the read position, each seal of the file once the line it ends with is sent,
   * stopping at the first refusal or failure. {@code finished}: the file is no longer written, so a last line
   * without its line end is sent too. Returns the records and seals sent, or -1 when the first send was refused
   * or the file's digest could not be looked at.
   */
  private int readAndSend(boolean finished) throws IOException {
    long size = openFile.length();
    if (size < read.offset) {
      truncated(new SpoolFile(null, read.fileKey, size, read.modifiedNanos, false, SpoolFile.ANYONE),
          read.offset);
      return 0;
    }
    buffer.clear();
    openFile.seek(read.offset);
    int n = openFile.read(buffer.array(), 0, buffer.capacity()); // one read(2), as a channel's read would make
    if (!seals.follow(read, finished, n > 0 || stop.requested())) { // a stop looks for a digest at each pass
      return -1;
    }
    int sent = seals.send(read);
    if (sent < 0 || n <= 0 || acks.isBroken() || !gaps.isEmpty()) {
      return sent;
    }
    byte[] a = buffer.array();
    LineEnds ends = new LineEnds(a);
    int start = 0;
    int i;
    while ((i = ends.next(start, n)) >= 0) {
      long sealEnd = seals.nextSealEnd();
      int last = together.lastLine(ends, start, i, n, read.global(), sealEnd == Long.MAX_VALUE ? Long.MAX_VALUE
          : ShipPosition.global(read.fileSeq, sealEnd), refusedAt);
      if (!(last == i ? sendLine(a, start, i - start, i - start + 1) : sendLines(a, start, last, together.lines()))) {
        return sent > 0 ? sent : -1;
      }
      sent++;
      start = last + 1;
      int s = seals.send(read);
      if (s < 0) {
        return sent;
      }
      sent += s;
      if (acks.isBroken() || stop.timeIsUp() || !gaps.isEmpty()) {
        return sent;
      }
    }
    atLiveEnd = n < buffer.capacity(); // read to the file's end: what is left there is part of a line
    if (start == 0 && n == buffer.capacity() && buffer.capacity() < MAX_BUFFER_BYTES) {
      buffer = ByteBuffer.allocate(buffer.capacity() * 2); // a line longer than the buffer
      return sent + 1;
    }
    if (finished && start < n && read.offset + n == openFile.length()) {
      if (!sendLine(a, start, n - start, n - start)) { // the file ends in part of a line
        return sent > 0 ? sent : -1;
      }
      sent++;
      int s = seals.send(read);
      sent += Math.max(0, s);
    }
    return sent;
  }

  /**
   * Sends the {@code lines} whole lines from {@code from} to the line end at {@code last}, at least two, as one
   * {@code records} record at the read position: their bytes without the last line end.
   */
  private boolean sendLines(byte[] a, int from, int last, int lines) {
    ShipPosition end = read.at(read.offset + last + 1 - from);
    byte[] value = Arrays.copyOfRange(a, from, last);
    RecordHeaders h = sender.headers(ShipHeaders.RECORDS, read.fileSeq, read.offset);
    if (!sender.sendRecord(h, value, read, end, last + 1 - from, lines)) {
      return false;
    }
    read = end;
    return true;
  }

  /** Sends one line ({@code length} bytes, {@code span} with its line end) at the read position. */
  private boolean sendLine(byte[] a, int from, int length, int span) {
    ShipPosition end = read.at(read.offset + span);
    int limit = maxValueBytes;
    if (read.global() == refusedAt) {
      if (refusedTimes >= 2) { // refused even cut: skipped, and said so
        gaps.note("the record at byte " + read.offset + " of file " + read.fileSeq + " (" + length + " bytes) was "
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
    RecordHeaders h = cut ? sender.cutHeaders(read.fileSeq, read.offset, length)
        : sender.headers(ShipHeaders.RECORD, read.fileSeq, read.offset);
    if (!sender.sendRecord(h, value, read, end, span, 1)) {
      return false;
    }
    read = end;
    return true;
  }
}
