package io.nnaudit.verify;

import java.io.BufferedInputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import io.nnaudit.seal.DigestFile;

/**
 * Reads a digest file line by line, with no line longer than {@link DigestFile#MAX_LINE} held in memory and
 * nothing read past a line that long: verify reads a digest of any size, or one full of binary garbage, in
 * constant memory. Not thread-safe: one reader,
 * one pass.
 */
final class DigestLines implements Closeable {
  /** What {@link #next} gives for a last line without its newline (a seal cut short by a kill). */
  static final String UNFINISHED = new String("(unfinished)");
  /** What {@link #next} gives for a line longer than any seal (the reader is then done). */
  static final String TOO_LONG = new String("(too long)");

  private final InputStream in;
  private final byte[] line = new byte[DigestFile.MAX_LINE];

  DigestLines(Path digest) throws IOException {
    this.in = new BufferedInputStream(Files.newInputStream(digest, StandardOpenOption.READ,
        LinkOption.NOFOLLOW_LINKS), 1 << 16);
  }

  /**
   * The next line without its newline; {@link #UNFINISHED} or {@link #TOO_LONG} (compare with ==); null at the
   * end of the file.
   */
  String next() throws IOException {
    int n = 0;
    int b;
    while ((b = in.read()) >= 0) {
      if (b == '\n') {
        return new String(line, 0, n, StandardCharsets.UTF_8);
      }
      if (n == line.length) {
        return TOO_LONG; // no seal is this long: the caller stops here, nothing more is read
      }
      line[n++] = (byte) b;
    }
    return n == 0 ? null : UNFINISHED;
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
