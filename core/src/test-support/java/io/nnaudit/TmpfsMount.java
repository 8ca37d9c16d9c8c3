package io.nnaudit;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * A small tmpfs mounted by the test itself, to make a disk really full. Needs root (or CAP_SYS_ADMIN), which
 * this project's machines and CI have; {@link #mount} returns null where mounting is impossible.
 */
public final class TmpfsMount implements AutoCloseable {
  public final File dir;
  private File filler;

  private TmpfsMount(File dir) {
    this.dir = dir;
  }

  public static TmpfsMount mount(File dir, String size) throws Exception {
    if (!dir.isDirectory() && !dir.mkdirs()) {
      return null;
    }
    if (run("mount", "-t", "tmpfs", "-o", "size=" + size + ",mode=0755", "tmpfs", dir.getPath()) != 0) {
      return null;
    }
    return new TmpfsMount(dir);
  }

  /** Fills the file system to the last byte. */
  public void fill() throws IOException {
    filler = new File(dir, "filler");
    byte[] block = new byte[4096];
    try (FileOutputStream out = new FileOutputStream(filler)) {
      while (true) {
        out.write(block);
      }
    } catch (IOException full) {
      // ENOSPC: the disk is full
    }
    try (FileOutputStream out = new FileOutputStream(filler, true)) {
      while (true) {
        out.write(1);
      }
    } catch (IOException full) {
      // to the byte
    }
  }

  public void free() {
    if (filler != null && !filler.delete()) {
      throw new AssertionError("cannot delete " + filler);
    }
  }

  private static int run(String... cmd) throws Exception {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      return -1;
    }
    return p.exitValue();
  }

  @Override
  public void close() throws Exception {
    run("umount", "-l", dir.getPath());
  }
}
