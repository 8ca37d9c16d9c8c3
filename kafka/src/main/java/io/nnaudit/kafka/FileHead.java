package io.nnaudit.kafka;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

import io.nnaudit.seal.Seal;

/** The SHA-256 of a file's first bytes, which tells a file from another that got its inode number later. */
final class FileHead {
  private FileHead() {
  }

  /** Hex SHA-256 of the first {@code length} bytes of {@code in} (fewer if it ends first). */
  static String sha256(InputStream in, int length) throws IOException {
    byte[] buf = new byte[Math.max(1, length)];
    int n = 0;
    while (n < length) {
      int r = in.read(buf, n, length - n);
      if (r < 0) {
        break;
      }
      n += r;
    }
    return Seal.hex(Seal.sha256(Arrays.copyOf(buf, n)));
  }
}
