package io.nnaudit.sink.file;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.UserPrincipal;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;

import io.nnaudit.trail.Lstat;

/**
 * Opens the audit file for appending, refusing what could send the records elsewhere or hang the writer: a
 * symlink at the path (its last component), a FIFO, socket or device, a directory, or a file owned by another
 * user than the one this process creates files as.
 *
 * <p>Design note. What is at the path is looked at with lstat before it is opened, so a FIFO is never opened
 * (open(2) on a FIFO blocks until a reader comes: the writer, and under BLOCK the NameNode, would stop). It is
 * opened with O_NOFOLLOW, and afterwards the path must still hold the same file (device and inode) that was
 * looked at. That narrows the race with someone who swaps the path between the look and the open to
 * microseconds; it does not close it, since Java cannot fstat an open channel. A missing file is created with
 * O_CREAT|O_EXCL, which neither follows a symlink nor opens an existing file.
 *
 * <p>"The user this process creates files as" is learnt from a probe file created and deleted in the audit
 * directory the first time an existing file must be judged, so that it holds where the file system maps owners
 * (NFS with root squashing); if the directory is not writable, from the user named by {@code user.name}.
 */
final class AuditFileOpener {
  private static final Set<OpenOption> CREATE = options(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
      StandardOpenOption.APPEND, LinkOption.NOFOLLOW_LINKS);
  private static final Set<OpenOption> APPEND = options(StandardOpenOption.WRITE, StandardOpenOption.APPEND,
      LinkOption.NOFOLLOW_LINKS);
  private static final Set<OpenOption> READ = options(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
  /** Opens in a row that find the path changed between the look and the open, before giving up. */
  private static final int ATTEMPTS = 3;

  private final Path path;
  private final FileAttribute<Set<PosixFilePermission>> mode;
  private final ChannelFactory channels;
  private UserPrincipal processUser;

  AuditFileOpener(Path path, FileAttribute<Set<PosixFilePermission>> mode, ChannelFactory channels) {
    this.path = path;
    this.mode = mode;
    this.channels = channels;
  }

  /** What was at the path and why it is not opened; the message names it. */
  static final class RefusedFileException extends IOException {
    private static final long serialVersionUID = 1L;

    RefusedFileException(String message) {
      super(message);
    }
  }

  /** The file now open for appending, and what the sink needs to know about it. */
  static final class OpenFile {
    final FileChannel channel;
    final Object fileKey;
    final boolean created;
    /** The file ends in part of a record (a process killed in the middle of write(2)). */
    final boolean endsInPartialRecord;

    OpenFile(FileChannel channel, Object fileKey, boolean created, boolean endsInPartialRecord) {
      this.channel = channel;
      this.fileKey = fileKey;
      this.created = created;
      this.endsInPartialRecord = endsInPartialRecord;
    }
  }

  /** Opens the file at the path for appending, creating it if missing; throws {@link RefusedFileException}. */
  OpenFile open() throws IOException {
    for (int attempt = 1; ; attempt++) {
      BasicFileAttributes found = Lstat.basic(path);
      OpenFile f = found == null ? create() : openExisting(found);
      if (f != null) {
        return f;
      }
      if (attempt == ATTEMPTS) {
        throw new IOException(path + " changed each time it was opened (" + ATTEMPTS + " times)");
      }
    }
  }

  /** How to say what went wrong in a log line or a configuration error. */
  static String describe(Exception e) {
    return e instanceof RefusedFileException ? e.getMessage() : e.toString();
  }

  /** Null if something appeared at the path meanwhile. */
  private OpenFile create() throws IOException {
    FileChannel ch;
    try {
      ch = channels.open(path, CREATE, mode);
    } catch (FileAlreadyExistsException appeared) {
      return null;
    } catch (UnsupportedOperationException noPosix) {
      ch = channels.open(path, CREATE);
    }
    try {
      return new OpenFile(ch, Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
          .fileKey(), true, false);
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
  }

  /** Null if the path no longer holds the file that was looked at. */
  private OpenFile openExisting(BasicFileAttributes found) throws IOException {
    String refusal = refusal(found);
    if (refusal != null) {
      throw new RefusedFileException(path + " is " + refusal);
    }
    FileChannel ch = channels.open(path, APPEND);
    try {
      boolean partial = endsInPartialRecord(ch.size());
      BasicFileAttributes now = Lstat.basic(path);
      if (now == null || !Objects.equals(now.fileKey(), found.fileKey())) {
        ch.close();
        return null;
      }
      return new OpenFile(ch, found.fileKey(), false, partial);
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
  }

  /** Why the file found at the path is not opened, or null if it may be. */
  private String refusal(BasicFileAttributes found) throws IOException {
    if (found.isSymbolicLink()) {
      return "a symlink (to " + Files.readSymbolicLink(path) + ")";
    }
    if (found.isDirectory()) {
      return "a directory";
    }
    if (!found.isRegularFile()) {
      return specialFileKind();
    }
    UserPrincipal owner = Files.getOwner(path, LinkOption.NOFOLLOW_LINKS);
    UserPrincipal expected = processUser();
    if (!owner.equals(expected)) {
      return "owned by " + owner.getName() + ", not by " + expected.getName() + ", the user that writes it";
    }
    return null;
  }

  private String specialFileKind() {
    try {
      int type = (Integer) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS) & 0170000;
      switch (type) {
        case 0010000:
          return "a FIFO";
        case 0140000:
          return "a socket";
        case 0020000:
        case 0060000:
          return "a device";
        default:
          break;
      }
    } catch (IOException | RuntimeException notUnix) {
      // no "unix" attribute view: say what is certain
    }
    return "not a regular file";
  }

  private UserPrincipal processUser() throws IOException {
    if (processUser == null) {
      Path dir = path.toAbsolutePath().getParent();
      try {
        Path probe = Files.createTempFile(dir, "." + path.getFileName() + ".", ".owner");
        try {
          processUser = Files.getOwner(probe, LinkOption.NOFOLLOW_LINKS);
        } finally {
          Files.deleteIfExists(probe);
        }
      } catch (IOException notWritable) {
        processUser = dir.getFileSystem().getUserPrincipalLookupService()
            .lookupPrincipalByName(System.getProperty("user.name"));
      }
    }
    return processUser;
  }

  /** Reads the last byte through a channel of its own: an APPEND channel cannot read. */
  private boolean endsInPartialRecord(long size) throws IOException {
    if (size == 0) {
      return false;
    }
    ByteBuffer last = ByteBuffer.allocate(1);
    try (FileChannel reader = FileChannel.open(path, READ)) {
      reader.read(last, size - 1);
    }
    return last.get(0) != '\n';
  }

  private static Set<OpenOption> options(OpenOption... options) {
    return Collections.unmodifiableSet(new HashSet<>(Arrays.asList(options)));
  }
}
