package io.nnaudit.kafka;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * Why a stream or {@code RandomAccessFile} could not open a file: their {@link FileNotFoundException} says the
 * same for a file that is not there and one that is there but not to be read, which a channel's open tells apart.
 * The shipper opens its files through those (an interrupt does not close them, as it closes a channel), and asks
 * here which it was. Stateless.
 */
final class OpenFailure {
  private OpenFailure() {
  }

  /**
   * Whether there is no file at {@code p} to open, as a missing file or a link to one, after {@code why}. Any
   * other failure to look (a directory not searchable) is not "missing": it is added to {@code why}, which the
   * caller throws.
   */
  static boolean missing(Path p, FileNotFoundException why) {
    try {
      Files.readAttributes(p, BasicFileAttributes.class);
      return false;
    } catch (NoSuchFileException e) {
      return true;
    } catch (IOException e) {
      why.addSuppressed(e);
      return false;
    }
  }
}
