package io.nnaudit.sink;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;

import io.nnaudit.NnauditConfigKeys;
import io.nnaudit.NnauditSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The audit file, appended to and rotated by size the way log4j's RollingFileAppender does for the stock
 * RFAAUDIT: once the file has reached {@code nnaudit.file.max.size}, {@code file.N-1} becomes {@code file.N}
 * (the oldest is deleted), {@code file} becomes {@code file.1} and a new {@code file} is created.
 *
 * <p>Rotation happens only between batches, after a batch is fully written, so no record is ever split or
 * lost by it. New files get the mode of {@code nnaudit.file.permissions} (default 640, owner and group only).
 * Used by the writer thread alone; not thread-safe.
 */
public class RollingFileSink implements AuditSink {
  private static final Logger LOG = LoggerFactory.getLogger(RollingFileSink.class);
  private final Path path;
  private final long maxSize;
  private final int maxBackups;
  private final FileAttribute<Set<PosixFilePermission>> mode;
  private FileChannel channel;
  private long size;

  public RollingFileSink(NnauditSettings settings) {
    this.path = settings.file().toPath();
    this.maxSize = settings.maxFileSize();
    this.maxBackups = settings.maxBackups();
    this.mode = PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(settings.filePermissions()));
    try {
      Path parent = path.getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      open();
    } catch (IOException | RuntimeException e) {
      IllegalArgumentException iae = new IllegalArgumentException("nnaudit: invalid value for "
          + NnauditConfigKeys.FILE_PATH_KEY + ": '" + settings.file() + "'. Allowed: a path to a file the NameNode"
          + " user can create and append to (" + e + ").");
      iae.initCause(e);
      throw iae;
    }
  }

  private void open() throws IOException {
    FileChannel ch;
    try {
      ch = FileChannel.open(path, EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
          StandardOpenOption.APPEND), mode);
    } catch (FileAlreadyExistsException exists) {
      ch = FileChannel.open(path, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    } catch (UnsupportedOperationException noPosix) {
      ch = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    }
    channel = ch;
    size = ch.size();
  }

  @Override
  public void write(ByteBuffer batch) throws IOException {
    while (batch.hasRemaining()) {
      size += channel.write(batch);
    }
    if (size >= maxSize) {
      try {
        rotate();
      } catch (IOException e) {
        // The batch is on disk already; keep appending to whatever file we can and try again next batch.
        LOG.warn("nnaudit: could not rotate {}; appending to it instead", path, e);
        if (!channel.isOpen()) {
          open();
        }
      }
    }
  }

  /** Shifts file.(N-1)..file.1 up by one, moves the live file to file.1 and opens a new live file. */
  void rotate() throws IOException {
    channel.close();
    File base = path.toFile();
    Files.deleteIfExists(backup(base, maxBackups));
    for (int i = maxBackups - 1; i >= 1; i--) {
      Path from = backup(base, i);
      if (Files.exists(from)) {
        Files.move(from, backup(base, i + 1), StandardCopyOption.REPLACE_EXISTING);
      }
    }
    Files.move(path, backup(base, 1), StandardCopyOption.REPLACE_EXISTING);
    open();
  }

  private static Path backup(File base, int i) {
    return new File(base.getPath() + "." + i).toPath();
  }

  /** Bytes in the live file. */
  public long size() {
    return size;
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
