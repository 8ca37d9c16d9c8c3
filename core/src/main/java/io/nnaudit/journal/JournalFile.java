package io.nnaudit.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.Set;
import java.util.zip.CRC32;

/**
 * The journal's file on disk: a header of {@link #HEADER_BYTES} and a ring of records after it, mapped shared
 * into the NameNode's memory, so that what a handler copies into it is in the kernel's page cache at once and
 * survives the death of the process (kill -9, an OutOfMemoryError that halts the JVM), as a write(2) does.
 *
 * <p>The header holds the magic, the format version and the ring's size, then two marks ({@link JournalMark}),
 * written in turn by the one writing thread, each with its own CRC: a mark cut short by the process's death
 * leaves the other, older one valid. The newest valid mark says how far the ring is known to be in the audit
 * file, and which write was under way.
 *
 * <p>The file is made whole before it is mapped: its every byte is written (zeros) and forced, so that no page
 * of the mapping is a hole that a full disk could refuse while a handler copies into it. It is never unmapped
 * by us (a mapping is released only when nothing refers to it), and never truncated while mapped. It is
 * refused on filesystems where a write into a mapping may fail later, or where it is not shared with the next
 * process in the same way (network, FUSE, copy-on-write), and on JVMs before 14, on which a fault while copying
 * into a mapping crashes the JVM instead of throwing.
 *
 * <p>Design note. Not thread-safe by itself: the header's marks belong to the writing thread ({@link
 * RecordJournal} says who that is), the ring to whoever holds the journal's lock; each uses its own view of the
 * mapping. Nothing here blocks but the start's reads and writes of the file and, later, a page fault of the
 * mapping. Nothing drops.
 */
final class JournalFile {
  static final int HEADER_BYTES = 4096;
  /** "NNAUDJ01". */
  static final long MAGIC = 0x4e4e4155444a3031L;
  static final int VERSION = 1;
  /** The end of the last frame a handler finished: written under the journal's lock, after the frame. */
  static final int HEAD_AT = 16;
  static final int MARK_A = 64;
  static final int MARK_B = 320;
  static final int MARK_BYTES = 256;
  /** The audit file whose journal this is ({@code JournalStart.ownerName}): its length, then its UTF-8 bytes. */
  static final int OWNER_AT = 1024;
  static final int OWNER_MAX = HEADER_BYTES - OWNER_AT - 4;
  /** Where a new journal's first frame goes: not 0, which a ring of zeros would show as a frame's position. */
  static final long FIRST_POSITION = 16;
  /** The filesystems on which a shared mapping is a page cache the next process reads. */
  static final Set<String> FILESYSTEMS =
      Collections.unmodifiableSet(new HashSet<>(Arrays.asList("ext2", "ext3", "ext4", "xfs", "tmpfs")));

  final Path path;
  final int capacity;
  /** The audit file this journal was made for, as its header says. */
  final String owner;
  /** The ring: from the journal's lock only. */
  final MappedByteBuffer ring;
  /** The header: from the writing thread only. */
  private final MappedByteBuffer header;
  private long markSeq;

  private JournalFile(Path path, int capacity, MappedByteBuffer header, MappedByteBuffer ring, long markSeq) {
    this.path = path;
    this.owner = readOwner(header);
    this.capacity = capacity;
    this.header = header;
    this.ring = ring;
    this.markSeq = markSeq;
  }

  /** The journal of the audit file {@code auditFile}: a hidden file beside it, outside every trail name. */
  static Path pathFor(Path auditFile) {
    return auditFile.resolveSibling("." + auditFile.getFileName() + ".journal");
  }

  /** Whether this JVM can copy into a mapping without crashing on a fault (Java 14 and later). */
  static boolean jvmSupported() {
    String v = System.getProperty("java.specification.version", "1.8");
    try {
      return !v.startsWith("1.") && Integer.parseInt(v.split("\\.")[0]) >= 14;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  /**
   * Opens the journal at {@code path} as it is, or null when there is none. Throws when it is not a regular
   * file, or is not a journal: the caller sets it aside (and checks its owner).
   */
  static JournalFile openExisting(Path path) throws IOException {
    if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
      return null;
    }
    BasicFileAttributes a = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    if (!a.isRegularFile()) {
      throw new IOException(path + " is not a regular file");
    }
    try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE,
        LinkOption.NOFOLLOW_LINKS)) {
      long size = ch.size();
      if (size < HEADER_BYTES) {
        throw new IOException(path + " is too short to be a journal (" + size + " bytes)");
      }
      ByteBuffer h = ByteBuffer.allocate(16);
      while (h.hasRemaining() && ch.read(h, h.position()) >= 0) {
        // read the fixed part of the header
      }
      h.flip();
      if (h.remaining() < 16 || h.getLong(0) != MAGIC || h.getInt(8) != VERSION) {
        throw new IOException(path + " is not an nnaudit journal of version " + VERSION);
      }
      int capacity = h.getInt(12);
      if (capacity <= 0 || capacity % 16 != 0 || HEADER_BYTES + (long) capacity != size) {
        throw new IOException(path + " says its ring holds " + capacity + " bytes, and the file has " + size);
      }
      return map(path, ch, capacity);
    }
  }

  /** Creates a journal of {@code capacity} ring bytes at {@code path}, every byte written, forced and mapped. */
  static JournalFile create(Path path, int capacity, Set<PosixFilePermission> mode, String auditFile)
      throws IOException {
    Path tmp = path.resolveSibling(path.getFileName() + ".new");
    Files.deleteIfExists(tmp);
    FileAttribute<Set<PosixFilePermission>> attr =
        java.nio.file.attribute.PosixFilePermissions.asFileAttribute(mode);
    Set<OpenOption> options = new HashSet<>(Arrays.asList(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
        StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS));
    try (FileChannel ch = FileChannel.open(tmp, options, attr)) {
      ByteBuffer zeros = ByteBuffer.allocate(64 * 1024);
      long total = HEADER_BYTES + (long) capacity;
      for (long at = 0; at < total; ) {
        zeros.clear();
        zeros.limit((int) Math.min(zeros.capacity(), total - at));
        at += ch.write(zeros, at);
      }
      ByteBuffer h = ByteBuffer.allocate(16);
      h.putLong(MAGIC).putInt(VERSION).putInt(capacity).flip();
      while (h.hasRemaining()) {
        ch.write(h, h.position());
      }
      byte[] owner = auditFile.getBytes(StandardCharsets.UTF_8);
      if (owner.length > OWNER_MAX) {
        throw new IOException("the audit file's path is longer than a journal can name (" + OWNER_MAX + " bytes)");
      }
      ByteBuffer o = ByteBuffer.allocate(4 + owner.length);
      o.putInt(owner.length).put(owner).flip();
      while (o.hasRemaining()) {
        ch.write(o, OWNER_AT + o.position());
      }
      ch.force(true);
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(tmp);
      throw e;
    }
    Files.move(tmp, path, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    JournalFile f = openExisting(path);
    if (f == null) {
      throw new IOException(path + " vanished as it was made");
    }
    f.publishHead(FIRST_POSITION);
    f.writeMark(FIRST_POSITION, 0, null, 0, 0);
    f.writeMark(FIRST_POSITION, 0, null, 0, 0); // both slots: one damaged slot leaves the other
    return f;
  }

  /** The filesystem type of {@code dir}, when it is not one a journal may live on; null when it is. */
  static String refusedFilesystem(Path dir) throws IOException {
    FileStore store = Files.getFileStore(dir);
    return FILESYSTEMS.contains(store.type()) ? null : store.type();
  }

  private static JournalFile map(Path path, FileChannel ch, int capacity) throws IOException {
    MappedByteBuffer header = ch.map(FileChannel.MapMode.READ_WRITE, 0, HEADER_BYTES);
    MappedByteBuffer ring = ch.map(FileChannel.MapMode.READ_WRITE, HEADER_BYTES, capacity);
    JournalFile f = new JournalFile(path, capacity, header, ring, 0);
    JournalMark a = f.readMark(MARK_A);
    JournalMark b = f.readMark(MARK_B);
    f.markSeq = Math.max(a == null ? 0 : a.seq, b == null ? 0 : b.seq); // the next mark is newer than any valid one
    return f;
  }

  /** The newest valid mark, or an empty one (nothing written yet, or both damaged: see {@link #damagedMarks}). */
  JournalMark latestMark() {
    JournalMark a = readMark(MARK_A);
    JournalMark b = readMark(MARK_B);
    if (a == null && b == null) {
      return JournalMark.EMPTY;
    }
    if (a == null) {
      return b;
    }
    return b == null || a.seq > b.seq ? a : b;
  }

  /** A handler, under the journal's lock: the last frame it finished ends at {@code end}. */
  void publishHead(long end) {
    header.putLong(HEAD_AT, end);
  }

  /** The end of the last frame a handler finished, as the last run left it (0 for none yet). */
  long publishedHead() {
    return header.getLong(HEAD_AT);
  }

  private static String readOwner(ByteBuffer header) {
    int len = header.getInt(OWNER_AT);
    if (len <= 0 || len > OWNER_MAX) {
      return null;
    }
    return new String(bytesAt(header, OWNER_AT + 4, len), StandardCharsets.UTF_8);
  }

  /** Whether both marks are unreadable while the header shows that one was written. */
  boolean damagedMarks() {
    return readMark(MARK_A) == null && readMark(MARK_B) == null
        && (header.getLong(MARK_A) != 0 || header.getLong(MARK_B) != 0);
  }

  /** The writing thread: writes {@code m}'s fields, with the next seq, in the older of the two slots. */
  void writeMark(long written, long pendingEnd, String fileKey, long offset, long length) {
    long seq = ++markSeq;
    int at = (seq & 1) == 1 ? MARK_A : MARK_B;
    byte[] key = fileKey == null ? NO_KEY : keyBytes(fileKey);
    int keyLen = Math.min(key.length, MARK_BYTES - 64);
    header.putLong(at + 8, written);
    header.putLong(at + 16, pendingEnd);
    header.putLong(at + 24, offset);
    header.putLong(at + 32, length);
    header.putInt(at + 40, keyLen);
    ByteBuffer view = header.duplicate();
    view.position(at + 44);
    view.put(key, 0, keyLen);
    header.putLong(at, seq);
    header.putInt(at + MARK_BYTES - 4, markCrc(header, at, keyLen));
  }

  private static final byte[] NO_KEY = new byte[0];
  /** Far beyond any run's marks (two a write); a larger seq is not a writer's. */
  private static final long MAX_SEQ = 1L << 62;
  /** The last file key written and its bytes: the writer names the same file in every mark until it rotates. */
  private String lastKey;
  private byte[] lastKeyBytes;

  private byte[] keyBytes(String fileKey) {
    if (!fileKey.equals(lastKey)) {
      lastKeyBytes = fileKey.getBytes(StandardCharsets.UTF_8);
      lastKey = fileKey;
    }
    return lastKeyBytes;
  }

  private JournalMark readMark(int at) {
    long seq = header.getLong(at);
    int keyLen = header.getInt(at + 40);
    if (seq <= 0 || seq > MAX_SEQ || keyLen < 0 || keyLen > MARK_BYTES - 64
        || header.getInt(at + MARK_BYTES - 4) != markCrc(header, at, keyLen)) {
      return null;
    }
    long written = header.getLong(at + 8);
    long pendingEnd = header.getLong(at + 16);
    // Positions are multiples of 16, and the writer never marks past the frames its handlers finished by more than
    // the one being finished (and a wrap): anything else no writer makes (damaged, or made by hand).
    long limit = Math.max(publishedHead(), FIRST_POSITION) + capacity / 2;
    if (written < 0 || pendingEnd < 0 || (pendingEnd > 0 && pendingEnd < written) || header.getLong(at + 24) < 0
        || header.getLong(at + 32) < 0 || (written & 15) != 0 || (pendingEnd & 15) != 0 || written > limit
        || pendingEnd > limit) {
      return null;
    }
    return new JournalMark(seq, written, pendingEnd,
        keyLen == 0 ? null : new String(bytesAt(header, at + 44, keyLen), StandardCharsets.UTF_8),
        header.getLong(at + 24), header.getLong(at + 32));
  }

  private static int markCrc(ByteBuffer header, int at, int keyLen) {
    byte[] fields = bytesAt(header, at, 44 + keyLen);
    CRC32 crc = new CRC32();
    crc.update(fields, 0, fields.length);
    return (int) crc.getValue();
  }

  /** {@code len} bytes of {@code header} from {@code at}, through a view of its own (the buffer's position stays). */
  private static byte[] bytesAt(ByteBuffer header, int at, int len) {
    byte[] b = new byte[len];
    ByteBuffer view = header.duplicate();
    view.position(at);
    view.get(b);
    return b;
  }
}
