package io.nnaudit.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.UserPrincipal;
import java.util.Set;
import java.util.zip.CRC32;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a start does with the journal of its audit file, before any handler uses it: it settles the write the last
 * run may have been making when it died ({@link #open}), then writes to the audit file every record the ring holds
 * past the mark ({@link #replay}), in ring order, with the same marks around each write as the writer's, so that
 * a start that dies in turn is settled by the next one. Then the journal is handed to the pipeline.
 *
 * <p>A write under way (the mark names a file, an offset and a length) is settled by comparing the file the path
 * holds with it: the same file (device and inode) at least as long as the write's end has it whole; no longer than
 * its offset, not at all; in between, cut short, and the part written is taken back out (truncated to the offset)
 * before its records are written again whole. A path that holds another file (moved or replaced while the NameNode
 * was down) cannot say: the write's records are written again, and may then be there twice; this is logged.
 *
 * <p>A journal that is not ours, not a regular file, not a journal, or whose marks are both damaged is set aside
 * under a name with {@code .bad-<millis>} added, with an ERROR: a start cannot tell which of its records were
 * written, and does not guess. A journal of another size is replayed, then replaced by one of the size set.
 *
 * <p>Design note. Runs on the thread that opens the sink, before the pipeline starts; nothing else touches the
 * journal or the audit file meanwhile. It blocks on the reads and writes of both files. Nothing drops but what the
 * ring cannot vouch for: a frame whose position, length or CRC does not match ends the replay (a handler killed in
 * the middle of its copy, whose operation was never acknowledged; or an edit).
 */
public final class JournalStart {
  private static final Logger LOG = LoggerFactory.getLogger(JournalStart.class);
  /** Replayed records go to the audit file in writes of about this much. */
  static final int REPLAY_CHUNK_BYTES = 1 << 20;

  /** Appends a chunk to the audit file, with {@link RecordJournal#beforeAppend} and {@code afterAppend} around it. */
  public interface Appender {
    void append(ByteBuffer chunk) throws IOException;
  }

  private final Path auditFile;
  private final int capacity;
  private final Set<PosixFilePermission> mode;
  /** The journal as the last run left it, or null. */
  private final JournalFile existing;
  /** How far the existing ring is in the audit file, once the write under way is settled. */
  private final long written;
  private RecordJournal journal;

  private JournalStart(Path auditFile, int capacity, Set<PosixFilePermission> mode, JournalFile existing,
      long written) {
    this.auditFile = auditFile;
    this.capacity = capacity;
    this.mode = mode;
    this.existing = existing;
    this.written = written;
  }

  /**
   * Opens the journal of {@code auditFile} and settles the write the last run was making, before the audit file is
   * opened for appending. Throws when the journal cannot be used at all (its directory, its filesystem).
   */
  public static JournalStart open(Path auditFile, int capacity, Set<PosixFilePermission> mode) throws IOException {
    Path dir = auditFile.toAbsolutePath().getParent();
    String fs = JournalFile.refusedFilesystem(dir);
    if (fs != null) {
      throw new IOException("the journal cannot live on a " + fs + " filesystem (" + dir + "): only on "
          + JournalFile.FILESYSTEMS);
    }
    Path path = JournalFile.pathFor(auditFile);
    JournalFile existing;
    try {
      existing = JournalFile.openExisting(path);
      if (existing != null && !ours(path)) {
        throw new IOException(path + " is owned by " + Files.getOwner(path, LinkOption.NOFOLLOW_LINKS)
            + ", not by the NameNode's user");
      }
      if (existing != null && existing.damagedMarks()) {
        throw new IOException("both marks of " + path + " are damaged");
      }
    } catch (IOException e) {
      setAside(path, e);
      existing = null;
    }
    long written = existing == null ? 0 : settle(auditFile, existing.latestMark());
    return new JournalStart(auditFile, capacity, mode, existing, written);
  }

  /**
   * Writes the records the ring holds past the mark with {@code appender}, and returns the journal, ready for the
   * handlers: this one, or a new one of the size set, going on from the same position.
   */
  public RecordJournal replay(Appender appender) throws IOException {
    long end = written;
    if (existing != null) {
      journal = new RecordJournal(existing, written);
      end = replayFrames(appender);
    }
    JournalFile target = existing;
    if (existing == null || existing.capacity != capacity) {
      target = JournalFile.create(JournalFile.pathFor(auditFile), capacity, mode);
      if (existing != null) {
        LOG.info("nnaudit: the journal {} now holds {} bytes (it held {})", target.path, capacity, existing.capacity);
      }
    }
    target.writeMark(end, 0, null, 0, 0); // settled: the next frame goes at end, past everything written
    journal = new RecordJournal(target, end);
    return journal;
  }

  /** The journal being replayed, for the sink's appends during {@link #replay}. */
  public RecordJournal replaying() {
    return journal;
  }

  private long replayFrames(Appender appender) throws IOException {
    ByteBuffer ring = existing.ring.duplicate();
    int cap = existing.capacity;
    ByteBuffer chunk = ByteBuffer.allocate(REPLAY_CHUNK_BYTES + cap / 4);
    long p = written;
    long records = 0;
    CRC32 crc = new CRC32();
    while (p - written < cap) { // at most one lap: the ring never holds more
      int off = (int) (p % cap);
      if (ring.getLong(off) != p) {
        break;
      }
      int len = ring.getInt(off + 8);
      if (len == RecordJournal.WRAP) {
        p += cap - off;
        continue;
      }
      int frame = len < 0 ? -1 : RecordJournal.frameBytes(len);
      if (frame < 0 || off + frame > cap) {
        LOG.error("nnaudit: the journal {} has a damaged frame at {}; the replay stops there", existing.path, p);
        break;
      }
      byte[] bytes = new byte[len];
      ring.position(off + RecordJournal.FRAME_HEADER);
      ring.get(bytes);
      crc.reset();
      crc.update(bytes, 0, len);
      if ((int) crc.getValue() != ring.getInt(off + 12)) {
        LOG.error("nnaudit: the journal {} has a frame at {} whose CRC does not match; the replay stops there",
            existing.path, p);
        break;
      }
      if (chunk.position() + len > REPLAY_CHUNK_BYTES && chunk.position() > 0) {
        write(appender, chunk, p);
      }
      chunk.put(bytes);
      records++;
      p += frame;
    }
    if (chunk.position() > 0) {
      write(appender, chunk, p);
    }
    if (records > 0) {
      LOG.warn("nnaudit: wrote {} records to {} from the journal {}: operations acknowledged before the last "
          + "NameNode process ended without writing them", records, auditFile, existing.path);
    }
    return p;
  }

  private void write(Appender appender, ByteBuffer chunk, long end) throws IOException {
    chunk.flip();
    journal.cover(end);
    appender.append(chunk);
    journal.cover(0);
    chunk.clear();
  }

  /** Settles the write named by {@code mark}; returns how far the ring is in the audit file. */
  private static long settle(Path auditFile, JournalMark mark) throws IOException {
    if (!mark.writePending()) {
      return mark.written;
    }
    BasicFileAttributes a;
    try {
      a = Files.readAttributes(auditFile, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (IOException e) {
      a = null;
    }
    if (a == null || !a.isRegularFile() || !mark.fileKey.equals(String.valueOf(a.fileKey()))) {
      LOG.warn("nnaudit: {} is not the file the journal's last write went to ({}); the {} bytes of that write are "
          + "written again from the journal, and may be there twice", auditFile, mark.fileKey, mark.length);
      return mark.written;
    }
    long size = a.size();
    if (size >= mark.offset + mark.length) {
      return mark.pendingEnd;
    }
    if (size > mark.offset) {
      LOG.warn("nnaudit: the last write to {} was cut short ({} of {} bytes at offset {}); that part is taken out "
          + "and its records are written again whole from the journal", auditFile, size - mark.offset, mark.length,
          mark.offset);
      try (FileChannel ch = FileChannel.open(auditFile, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
        ch.truncate(mark.offset);
        ch.force(false);
      }
    }
    return mark.written;
  }

  private static boolean ours(Path path) throws IOException {
    UserPrincipal me = path.getFileSystem().getUserPrincipalLookupService()
        .lookupPrincipalByName(System.getProperty("user.name"));
    return me.equals(Files.getOwner(path, LinkOption.NOFOLLOW_LINKS));
  }

  private static void setAside(Path path, IOException why) throws IOException {
    Path aside = path.resolveSibling(path.getFileName() + ".bad-" + System.currentTimeMillis());
    LOG.error("nnaudit: the journal {} cannot be used ({}); it is set aside as {}, and records it may hold are not "
        + "written", path, why.getMessage(), aside);
    if (Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
      Files.move(path, aside, StandardCopyOption.ATOMIC_MOVE);
    }
  }
}
