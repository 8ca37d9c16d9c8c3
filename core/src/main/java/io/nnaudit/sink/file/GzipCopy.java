package io.nnaudit.sink.file;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.zip.GZIPOutputStream;

import io.nnaudit.trail.Lstat;
import io.nnaudit.trail.RotatedFiles;

/**
 * The gzip of one rotated file, written to a temporary name ({@code file.compressing-T}) and fsynced: the plain
 * file is opened without following links and must still be the file that was listed (device and inode) once
 * open; the temporary file is created, never reused, with the sink's file mode. The plain file is only read.
 * Stateless; run on the compressor's thread. Any failure deletes the temporary file, an interrupt (the sink
 * closing) too: a stop leaves no half copy behind; a kill may, for the next start to delete.
 */
final class GzipCopy {
  private static final int BUFFER = 64 * 1024;
  private static final Set<OpenOption> CREATE = new HashSet<>(Arrays.<OpenOption>asList(StandardOpenOption.CREATE_NEW,
      StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS));

  private GzipCopy() {
  }

  /** A complete, fsynced compressed copy under its temporary name. Immutable. */
  static final class Copy {
    final Path temp;
    /** The key of the plain file it is a copy of. */
    final String key;
    final long bytesBefore;
    final long bytesAfter;

    Copy(Path temp, String key, long bytesBefore, long bytesAfter) {
      this.temp = temp;
      this.key = key;
      this.bytesBefore = bytesBefore;
      this.bytesAfter = bytesAfter;
    }
  }

  /** The file listed was moved (by a rotation) before it was opened: look for it again. */
  static final class MovedException extends IOException {
    private static final long serialVersionUID = 1L;

    MovedException(Path p) {
      super(p + " was moved between its listing and its open");
    }
  }

  /** Opens a listed file; one no longer at its path (a rotation moved it meanwhile) is a {@link MovedException}. */
  private static FileChannel open(Path listed) throws IOException {
    try {
      return FileChannel.open(listed, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
    } catch (java.nio.file.NoSuchFileException e) {
      throw new MovedException(listed);
    }
  }

  /**
   * Compresses {@code plain} into {@code temp}, created with {@code mode}; throws {@link MovedException} when
   * the path no longer holds the file that was listed.
   */
  static Copy compress(RotatedFiles.Backup plain, Path temp, FileAttribute<Set<PosixFilePermission>> mode)
      throws IOException {
    String key = Lstat.key(plain.attributes);
    boolean created = false;
    try (FileChannel in = open(plain.path)) {
      if (!key.equals(Lstat.key(plain.path))) {
        throw new MovedException(plain.path);
      }
      long size = in.size();
      long read = 0;
      long after;
      try (FileChannel out = FileChannel.open(temp, CREATE, mode)) {
        created = true;
        try (GZIPOutputStream gz = new GZIPOutputStream(Channels.newOutputStream(out), BUFFER)) {
          InputStream src = Channels.newInputStream(in);
          byte[] buf = new byte[BUFFER];
          for (int n; (n = src.read(buf)) > 0;) {
            gz.write(buf, 0, n);
            read += n;
          }
          gz.finish();
          after = out.size();
          // the .gz keeps the time of the file's last record: retention by age counts from it
          Files.setLastModifiedTime(temp, plain.attributes.lastModifiedTime());
          out.force(true);
        }
      }
      if (read != size || in.size() != size) {
        throw new IOException(plain.path + " changed while it was compressed (" + size + " bytes, then " + read
            + " read and " + in.size() + " there); a rotated file is not written to");
      }
      return new Copy(temp, key, read, after);
    } catch (IOException | RuntimeException e) {
      if (created) {
        try {
          Files.deleteIfExists(temp);
        } catch (IOException ex) {
          e.addSuppressed(ex);
        }
      }
      throw e;
    }
  }
}
