package io.nnaudit.sink.file;

import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

import io.nnaudit.trail.RotatedFiles;

/**
 * The benchmarks' way in to the compressor's own copy ({@link GzipCopy}, package-private), so that what
 * {@code io.nnaudit.jmh.CompressionCost} measures is the product's code path, not a copy of it: the same buffer,
 * the same deflate level, the same fsync of the result. In the core's package, in the benchmarks' jar only.
 */
public final class GzipCopyProbe {
  private GzipCopyProbe() {
  }

  /**
   * Compresses the rotated file {@code live.1} into {@code temp} as the compressor does, with the sink's default
   * mode (640); returns {bytes before, bytes after}. {@code temp} is left for the caller to delete.
   */
  public static long[] compressFirstBackup(Path live, Path temp) throws IOException {
    List<RotatedFiles.Backup> backups = RotatedFiles.list(live, 1);
    if (backups.isEmpty() || backups.get(0).compressed) {
      throw new IOException("no plain " + live + ".1 to compress");
    }
    GzipCopy.Copy c = GzipCopy.compress(backups.get(0), temp,
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-r-----")));
    return new long[] {c.bytesBefore, c.bytesAfter};
  }
}
