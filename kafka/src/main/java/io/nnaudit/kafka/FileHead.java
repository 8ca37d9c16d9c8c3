package io.nnaudit.kafka;

import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** The SHA-256 of a file's first bytes, which tells a file from another that got its inode number later. */
final class FileHead {
  private FileHead() {
  }

  /** Hex SHA-256 of the first {@code length} bytes of {@code in} (fewer if it ends first). */
  static String sha256(InputStream in, int length) throws IOException {
    MessageDigest md;
    try {
      md = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e); // every Java platform has SHA-256
    }
    byte[] buf = new byte[Math.max(1, length)];
    int n = 0;
    while (n < length) {
      int r = in.read(buf, n, length - n);
      if (r < 0) {
        break;
      }
      n += r;
    }
    md.update(buf, 0, n);
    StringBuilder sb = new StringBuilder();
    for (byte b : md.digest()) {
      sb.append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
    }
    return sb.toString();
  }
}
