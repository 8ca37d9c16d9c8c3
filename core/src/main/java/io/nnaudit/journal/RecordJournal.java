package io.nnaudit.journal;

import java.nio.ByteBuffer;
import java.util.Queue;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.nnaudit.event.AuditEvent;

/**
 * The crash journal of {@code nnaudit.ack.policy=journal}: a ring of records in a file mapped shared
 * ({@link JournalFile}). A handler formats its record, copies it into the ring and queues its event, and its
 * operation is acknowledged at once: the record is in the kernel's page cache, where the death of the process
 * cannot take it, as it would be after a write(2) of the audit file. The writer thread writes the events it takes
 * from the queue, as under every other policy, from the bytes each handler formatted; it never reads the ring.
 * The ring is read only by the next start ({@link JournalStart}), which writes to the audit file the records the
 * last run acknowledged and did not write.
 *
 * <p>A frame is the record's position in the ring (a count of bytes that only grows, across restarts), its
 * length, the CRC-32 of its bytes, and the bytes, padded to 16. A frame that would cross the ring's end is put at
 * its start, after a wrap marker. A frame's position is written last; a frame whose position, length or CRC does
 * not match ends what a start replays.
 *
 * <p>Design note.
 * <ul>
 * <li>What blocks. A handler takes the journal's lock to reserve room, copy its record (some hundred bytes) and
 * queue its event, the queue's own non-blocking offer; nothing else is done under it. The copy can fault on a page
 * the kernel is writing back, on a device that keeps pages stable while they are written; it waits for that page,
 * not for the audit file. The writing thread takes no lock here: it writes the header's marks, two per chunk.</li>
 * <li>What drops. Nothing: a record that finds no room (the writer is a ring behind), a queue that is full, a
 * journal suspended because the audit file refuses writes, or a record longer than a quarter of the ring, is not
 * journaled, and its handler waits for its write as under {@code ack.policy=write}.</li>
 * <li>Order. A record's place in the ring and its event's place in the queue are taken under one lock, so the
 * writer meets the journaled events in ring order; the end of the last it has written is the mark. The mark is
 * moved only after the write(2) that holds the records returned; before that write, the other mark slot names the
 * file, offset and length it writes ({@link #beforeAppend}).</li>
 * <li>Shut-down. The journal has none of its own: the pipeline's writer drains every queued event before the
 * shutdown hook hands the file over, so the mark then covers every journaled record, and the handlers' own writes
 * after the hand-over do not use it. {@link #close} stops journaling; the mapping stays until nothing refers to it.</li>
 * <li>Who owns what. {@link #head} and the ring belong to the holder of the lock; {@link #written} and the marks to
 * the writing thread (one at a time, as the sink is), which publishes {@link #written} for the handlers' room check;
 * {@link #accepting} is written by the writing thread and by close, read by handlers.</li>
 * </ul>
 */
public final class RecordJournal {
  private static final Logger LOG = LoggerFactory.getLogger(RecordJournal.class);
  static final int FRAME_HEADER = 16;
  static final int WRAP = -1;

  private final JournalFile file;
  private final int capacity;
  private final Object lock = new Object();
  /** Where the next frame goes. The lock. */
  private long head;
  /** The ring is in the audit file up to here. Written by the writing thread; read by handlers. */
  private volatile long written;
  /** False while the audit file refuses writes, after a failure the writer could not account for, and once closed. */
  private volatile boolean accepting = true;
  /** Set once by close: journaling does not resume. */
  private volatile boolean closed;
  /** The writer could not tell what it wrote: the mark stays where it was for this run. The writing thread. */
  private boolean frozen;
  /** The end of the ring's records in the chunk being written; 0 for none. The writing thread. */
  private long covering;
  /** The file the last mark named, and its key as text. The writing thread. */
  private Object lastFileKey;
  private String lastFileKeyText;

  RecordJournal(JournalFile file, long position) {
    this.file = file;
    this.capacity = file.capacity;
    this.head = position;
    this.written = position;
  }

  static int frameBytes(int recordLength) {
    return (FRAME_HEADER + recordLength + 15) & ~15;
  }

  /** Whether this JVM can keep a journal: Java 14 and later, on which a fault in a mapping's copy throws. */
  public static boolean jvmSupported() {
    return JournalFile.jvmSupported();
  }

  /** Whether handlers may journal now. */
  public boolean accepting() {
    return accepting;
  }

  /** The journal's file, for messages. */
  public String path() {
    return file.path.toString();
  }

  /**
   * A handler: copies {@code e}'s record ({@code record}, whose CRC-32 is {@code crc}) into the ring and offers
   * {@code e} to {@code queue}, both or neither. Returns false, having done neither, when there is no room, the
   * queue is full or journaling is suspended. Never blocks but for the lock and the copy (see the note).
   */
  public boolean append(AuditEvent e, byte[] record, int crc, Queue<AuditEvent> queue) {
    int frame = frameBytes(record.length);
    if (frame > capacity / 4) {
      return false;
    }
    synchronized (lock) {
      if (!accepting) {
        return false;
      }
      long p = head;
      int off = (int) (p % capacity);
      long start = off + frame > capacity ? p + (capacity - off) : p;
      long end = start + frame;
      if (end - written > capacity) {
        return false;
      }
      int at = (int) (start % capacity);
      ByteBuffer ring = file.ring;
      ring.position(at + FRAME_HEADER);
      ring.put(record);
      ring.putInt(at + 8, record.length);
      ring.putInt(at + 12, crc);
      e.journaled(record, end);
      if (!queue.offer(e)) {
        e.journaled(record, 0);
        return false;
      }
      try {
        if (start != p) {
          ring.putInt(off + 8, WRAP);
          ring.putLong(off, p);
        }
        ring.putLong(at, start); // last: the frame is whole
        file.publishHead(end); // a start that cannot read up to here says so
      } finally {
        head = end; // queued: its place is taken, whatever a fault of the mapping did
      }
      return true;
    }
  }

  /** The writing thread, before committing a chunk: the ring's records in it end at {@code end} (0: none). */
  public void cover(long end) {
    covering = end;
  }

  /**
   * The sink, right before it appends a chunk: when the chunk holds records of the ring, the mark names the write
   * (the file's identity {@code fileKey}, the offset it begins at, its length) before it is made.
   */
  public void beforeAppend(Object fileKey, long offset, long length) {
    if (covering > written && !frozen && !closed) {
      if (fileKey != lastFileKey) { // a file's key is one object for as long as the sink writes it
        lastFileKeyText = String.valueOf(fileKey);
        lastFileKey = fileKey;
      }
      file.writeMark(written, covering, lastFileKeyText, offset, length);
    }
  }

  /** The sink, once the append returned: the ring is in the file up to the chunk's end. */
  public void afterAppend() {
    if (covering > written && !frozen && !closed) {
      file.writeMark(covering, 0, null, 0, 0); // first: the ring is reused only past a mark that is made
      written = covering;
    }
  }

  /**
   * The writing thread, while the chunk is covered: it was given up under fail-open, its records counted as
   * dropped; the mark passes them.
   */
  public void passCovered() {
    if (covering > written && !frozen && !closed) {
      file.writeMark(covering, 0, null, 0, 0);
      written = covering;
    }
  }

  /** The writing thread: the audit file refused a write. Handlers wait for their writes until one succeeds. */
  public void suspend() {
    if (accepting && !frozen) {
      accepting = false;
      try {
        file.ring.force(); // the acknowledged records, to the disk while it still takes writes
      } catch (Throwable t) {
        LOG.warn("nnaudit: could not force the journal {} to disk: {}", file.path, t.toString());
      }
      LOG.error("nnaudit: the audit file refuses writes; until it takes one again, operations wait for their own "
          + "records. The records already acknowledged from the journal {} are written as soon as it does, or by "
          + "the next start", file.path);
    }
  }

  /** The writing thread: a write succeeded. */
  public void resume() {
    if (!accepting && !frozen && !closed) {
      accepting = true;
    }
  }

  /**
   * The writing thread: a failure left it unable to tell which of the chunk's records are in the file. The
   * mark stays where it is for the rest of this run and journaling stops; the next start writes again what the
   * ring holds past the mark, some of it perhaps twice, rather than lose an acknowledged record.
   */
  public void freeze(String why) {
    if (!frozen) {
      frozen = true;
      accepting = false;
      if (!closed) {
        // No write is named any more: a start must not judge one by the file's length, which other writes
        // (records that waited for their own, direct writes) go on changing this run.
        file.writeMark(written, 0, null, 0, 0);
      }
      LOG.error("nnaudit: {}; journaling stops for this run, and the next start writes the journal's records "
          + "past {} again (some perhaps twice)", why, written);
    }
  }

  /**
   * Stops journaling: later records wait for their own writes, and no more marks are made: a writer given up on
   * (its pipeline replaced, the file handed to another journal) leaves the header to the next. Idempotent.
   */
  public void close() {
    closed = true;
    accepting = false;
  }
}
