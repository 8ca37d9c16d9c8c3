package io.nnaudit.sink.file;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.regex.Pattern;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.nnaudit.trail.DatedNames;
import io.nnaudit.trail.RotatedFiles;
import io.nnaudit.trail.TrailNames;

/**
 * At start-up, before the live file is opened, what a compression stopped by a kill left: its temporary files
 * ({@code file.compressing-T}, never complete as far as anyone knows) are deleted; where a rotated file is there
 * both plain and compressed ({@code file.N} and {@code file.N.gz}, a kill between the rename and the delete),
 * the {@code .gz} is complete, since it takes its name only once fsynced, and the plain one is deleted, so that
 * no file is there twice. As a last check, the {@code .gz} must end in the plain file's length (gzip's
 * trailer); one that does not is no compression of ours and is renamed aside as an orphan, the plain file kept.
 * Stateless; called by the thread that opens the sink, whether compression is on or not.
 */
final class CompressionRecovery {
  private static final Logger LOG = LoggerFactory.getLogger(RollingFileSink.class);

  private CompressionRecovery() {
  }

  /** Cleans what compressions of {@code live} left; returns whether anything was deleted or renamed. */
  static boolean finishInterruptedCompression(Path live, DatedNames dated) throws IOException {
    Path dir = live.toAbsolutePath().getParent();
    live = dir.resolve(live.getFileName());
    boolean changed = deleteTemporaryFiles(dir, live);
    List<RotatedFiles.Backup> backups = RotatedFiles.list(live, dated, Integer.MAX_VALUE);
    for (int i = 1; i < backups.size(); i++) {
      RotatedFiles.Backup plain = backups.get(i - 1);
      RotatedFiles.Backup gz = backups.get(i);
      if (plain.index == gz.index && !plain.compressed && gz.compressed) {
        keepOne(plain, gz);
        changed = true;
      }
    }
    if (changed) {
      CompressionCommit.forceDirectory(live);
    }
    return changed;
  }

  private static boolean deleteTemporaryFiles(Path dir, Path live) throws IOException {
    Pattern temp = TrailNames.compressingPattern(live.getFileName().toString());
    boolean deleted = false;
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
      for (Path p : ds) {
        if (temp.matcher(p.getFileName().toString()).matches()) {
          Files.deleteIfExists(p);
          deleted = true;
          LOG.info("nnaudit: deleted {}, a compression stopped half-way (its plain file is kept)", p);
        }
      }
    }
    return deleted;
  }

  private static void keepOne(RotatedFiles.Backup plain, RotatedFiles.Backup gz) throws IOException {
    if (plain.attributes.isRegularFile() && gz.attributes.isRegularFile()
        && endsInLength(gz.path, plain.attributes.size())) {
      Files.delete(plain.path);
      LOG.warn("nnaudit: deleted {}, which a compression stopped after naming {}", plain.path.getFileName(),
          gz.path.getFileName());
    } else {
      Path aside = TrailNames.orphan(gz.path, System.currentTimeMillis());
      Files.move(gz.path, aside);
      LOG.error("nnaudit: {} is not a compression of {} (its length does not match); renamed it to {} and kept {}",
          gz.path, plain.path, aside.getFileName(), plain.path.getFileName());
    }
  }

  /** Whether the gzip file {@code gz} says, in its trailer, that it holds {@code length} bytes (mod 2^32). */
  private static boolean endsInLength(Path gz, long length) throws IOException {
    try (FileChannel ch = FileChannel.open(gz, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      long size = ch.size();
      if (size < 18) { // a header of 10 bytes and a trailer of 8
        return false;
      }
      ByteBuffer trailer = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
      while (trailer.hasRemaining() && ch.read(trailer, size - 4 + trailer.position()) > 0) {
        // read the ISIZE field
      }
      trailer.flip();
      return trailer.remaining() == 4 && (trailer.getInt() & 0xffffffffL) == (length & 0xffffffffL);
    }
  }
}
