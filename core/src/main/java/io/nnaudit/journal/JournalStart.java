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
 * <p>A journal that is not a regular file of the NameNode's user (its owner against the audit file's, or that of a
 * file this process makes beside it; a check that cannot be made fails the start), not a journal, made for another
 * audit file (by its directory's identity and its name), or whose marks are both damaged is set aside under a name with {@code .bad-<millis>} added, with an ERROR: a start
 * cannot tell which of its records were written, and does not guess. A journal of another size is replayed, then
 * replaced by one of the size set. A start under another ack policy still writes what a journal left beside its
 * file holds ({@link #leftBehind}), then removes it. A replay that stops before the last frame its handlers
 * finished (the header keeps that position) says with an ERROR how many bytes it could not write, and sets the
 * journal aside as it is.
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
  /** The ring's size for the journal to go on with; 0 when the policy is no longer journal. */
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
   * opened for appending. Throws when the journal cannot be used at all (its directory, its filesystem, its owner
   * cannot be told).
   */
  public static JournalStart open(Path auditFile, int capacity, Set<PosixFilePermission> mode) throws IOException {
    Path dir = auditFile.toAbsolutePath().getParent();
    String fs = JournalFile.refusedFilesystem(dir);
    if (fs != null) {
      throw new IOException("the journal cannot live on a " + fs + " filesystem (" + dir + "): only on "
          + JournalFile.FILESYSTEMS);
    }
    return start(auditFile, capacity, mode);
  }

  /**
   * Under another ack policy: the journal a run under {@code ack.policy=journal} left beside {@code auditFile},
   * or null when there is none. Its records are written by {@link #replay}, then it is removed ({@link #retire}).
   */
  public static JournalStart leftBehind(Path auditFile) throws IOException {
    if (!Files.exists(JournalFile.pathFor(auditFile), LinkOption.NOFOLLOW_LINKS)) {
      return null;
    }
    return start(auditFile, 0, null);
  }

  private static JournalStart start(Path auditFile, int capacity, Set<PosixFilePermission> mode)
      throws IOException {
    Path path = JournalFile.pathFor(auditFile);
    String owner = ownerName(auditFile);
    JournalFile existing;
    try {
      existing = JournalFile.openExisting(path);
    } catch (IOException e) {
      setAside(path, e.getMessage());
      existing = null;
    }
    if (existing != null) {
      String refused = null;
      if (!ours(path, auditFile)) { // a check that cannot be made throws: the start fails rather than set a journal aside
        refused = "it is owned by " + Files.getOwner(path, LinkOption.NOFOLLOW_LINKS) + ", not by the NameNode's user";
      } else if (existing.damagedMarks()) {
        refused = "both marks of its header are damaged";
      } else if (!owner.equals(existing.owner)) {
        refused = "it was made for " + existing.owner + ", not for " + owner;
      }
      if (refused != null) {
        setAside(path, refused);
        existing = null;
      }
    }
    long written = existing == null ? JournalFile.FIRST_POSITION : settle(auditFile, existing.latestMark());
    return new JournalStart(auditFile, capacity, mode, existing, written);
  }

  /**
   * The name a journal keeps of its audit file: the directory's identity (device and inode, which a symlink to it
   * or a rename of it does not change) and the file's name; the path when the filesystem has no identities.
   */
  static String ownerName(Path auditFile) throws IOException {
    Path dir = auditFile.toAbsolutePath().getParent();
    Object key = Files.readAttributes(dir, BasicFileAttributes.class).fileKey();
    return (key != null ? key.toString() : dir.toRealPath().toString()) + "/" + auditFile.getFileName();
  }

  /**
   * Writes the records the ring holds past the mark with {@code appender}, and returns the journal, ready for the
   * handlers: this one, or a new one of the size set, going on from the same position. Under another ack policy,
   * returns the journal as it was left, now written, for {@link #retire}.
   */
  public RecordJournal replay(Appender appender) throws IOException {
    long end = written;
    boolean damaged = false;
    if (existing != null) {
      journal = new RecordJournal(existing, written);
      end = replayFrames(appender);
      damaged = unread != null;
      if (damaged) {
        // Kept as it is, for whoever looks into it: later frames would overwrite what could not be read.
        journal.close();
        setAside(existing.path, unread);
        journal = null;
      }
    }
    if (capacity == 0) {
      return journal;
    }
    JournalFile target = damaged ? null : existing;
    if (target == null || target.capacity != capacity) {
      target = JournalFile.create(JournalFile.pathFor(auditFile), capacity, mode, ownerName(auditFile));
      if (existing != null) {
        LOG.info("nnaudit: the journal {} now holds {} bytes (it held {})", target.path, capacity, existing.capacity);
      }
    }
    target.publishHead(end);
    target.writeMark(end, 0, null, 0, 0); // settled: the next frame goes at end, past everything written
    journal = new RecordJournal(target, end);
    return journal;
  }

  /** The journal's file, for messages. */
  public String path() {
    return JournalFile.pathFor(auditFile).toString();
  }

  /** The journal being replayed, for the sink's appends during {@link #replay}. */
  public RecordJournal replaying() {
    return journal;
  }

  /** Under another ack policy, once {@link #replay} wrote its records: removes the journal. */
  public void retire() {
    if (journal == null) {
      return; // nothing left, or set aside
    }
    journal.close();
    Path path = JournalFile.pathFor(auditFile);
    try {
      Files.deleteIfExists(path);
      LOG.info("nnaudit: removed the journal {}: nnaudit.ack.policy is no longer journal", path);
    } catch (IOException e) {
      LOG.warn("nnaudit: could not remove the journal {} ({}); its records are written and its mark says so, so a "
          + "later start writes nothing from it", path, e.toString());
    }
  }

  /** What stopped the replay before the last frame its handlers finished; null when it read them all. */
  private String unread;

  private long replayFrames(Appender appender) throws IOException {
    ByteBuffer ring = existing.ring.duplicate();
    int cap = existing.capacity;
    ByteBuffer chunk = ByteBuffer.allocate(REPLAY_CHUNK_BYTES);
    long p = written;
    long records = 0;
    CRC32 crc = new CRC32();
    String damaged = null;
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
      if (len <= 0 || RecordJournal.frameBytes(len) > cap / 4 || off + RecordJournal.frameBytes(len) > cap) {
        damaged = "a frame whose length (" + len + ") no handler writes";
        break;
      }
      byte[] bytes = new byte[len];
      ring.position(off + RecordJournal.FRAME_HEADER);
      ring.get(bytes);
      crc.reset();
      crc.update(bytes, 0, len);
      if ((int) crc.getValue() != ring.getInt(off + 12)) {
        damaged = "a frame whose CRC does not match";
        break;
      }
      if (chunk.remaining() < len && chunk.position() > 0) {
        chunk.flip();
        write(appender, chunk, p);
        chunk.clear();
      }
      long next = p + RecordJournal.frameBytes(len);
      if (len > chunk.remaining()) {
        write(appender, ByteBuffer.wrap(bytes), next);
      } else {
        chunk.put(bytes);
      }
      records++;
      p = next;
    }
    if (chunk.position() > 0) {
      chunk.flip();
      write(appender, chunk, p);
    }
    long head = existing.publishedHead();
    if (damaged != null || head > p) {
      unread = "it could not be read past position " + p + " (" + (damaged != null ? damaged
          : "a frame whose position does not match") + "), where its handlers had finished frames up to "
          + Math.max(head, p);
      LOG.error("nnaudit: the journal {} could not be read past position {} ({}); its handlers had finished frames "
          + "up to {}: up to {} bytes of acknowledged records in it are not written to {}", existing.path, p,
          damaged != null ? damaged : "a frame whose position does not match", Math.max(head, p),
          Math.max(0, head - p), auditFile);
    }
    if (records > 0) {
      LOG.warn("nnaudit: wrote {} records to {} from the journal {}: operations acknowledged before the last "
          + "NameNode process ended without writing them", records, auditFile, existing.path);
    }
    return p;
  }

  private void write(Appender appender, ByteBuffer bytes, long end) throws IOException {
    journal.cover(end);
    try {
      appender.append(bytes);
    } finally {
      journal.cover(0);
    }
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

  /**
   * Whether the journal is the NameNode user's: its owner against the audit file's (which the file sink holds to
   * be that user's), or, with no audit file yet, against that of a file this process makes beside it. Never a
   * look-up of the user's name, which fails where the user has no entry (containers).
   */
  private static boolean ours(Path path, Path auditFile) throws IOException {
    UserPrincipal journalOwner = Files.getOwner(path, LinkOption.NOFOLLOW_LINKS);
    if (Files.isRegularFile(auditFile, LinkOption.NOFOLLOW_LINKS)) {
      return journalOwner.equals(Files.getOwner(auditFile, LinkOption.NOFOLLOW_LINKS));
    }
    Path probe = path.resolveSibling(path.getFileName() + ".owner");
    Files.deleteIfExists(probe);
    Files.createFile(probe);
    try {
      return journalOwner.equals(Files.getOwner(probe, LinkOption.NOFOLLOW_LINKS));
    } finally {
      Files.deleteIfExists(probe);
    }
  }

  private static void setAside(Path path, String why) throws IOException {
    Path aside = path.resolveSibling(path.getFileName() + ".bad-" + System.currentTimeMillis());
    LOG.error("nnaudit: the journal {} cannot be used ({}); it is set aside as {}, and records it may hold are not "
        + "written", path, why, aside);
    if (Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
      Files.move(path, aside, StandardCopyOption.ATOMIC_MOVE);
    }
  }
}
