package io.nnaudit.config;


/** Parses the octal file mode key (e.g. {@code 640}) into {@code PosixFilePermissions} text. */
public final class FilePermissionsValue {
  private FilePermissionsValue() {
  }

  public static String parse(String raw, String key) {
    String allowed = "a three-digit octal mode such as 640 or 600; the owner must be able to write and no one "
        + "but the owner may write";
    if (raw == null || !raw.matches("0?[0-7]{3}")) {
      throw ConfigError.invalid(key, raw, allowed);
    }
    int mode = Integer.parseInt(raw, 8);
    boolean ownerWrite = (mode & 0200) != 0;
    boolean othersWrite = (mode & 0022) != 0;
    if (!ownerWrite || othersWrite) {
      throw ConfigError.invalid(key, raw, allowed);
    }
    StringBuilder sb = new StringBuilder(9);
    for (int shift = 6; shift >= 0; shift -= 3) {
      int bits = (mode >> shift) & 7;
      sb.append((bits & 4) != 0 ? 'r' : '-').append((bits & 2) != 0 ? 'w' : '-').append((bits & 1) != 0 ? 'x' : '-');
    }
    return sb.toString();
  }
}
