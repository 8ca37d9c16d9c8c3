package io.nnaudit;

import java.net.URI;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * One client calling {@code mkdirs} once, on a thread of its own, with a {@link FileSystem} of its own and
 * {@link MkdirsLoad#failFastClientConf()}: for the tests that hold a response back and watch whether it left.
 */
final class MkdirsCall {
  /** The call returned true: the NameNode acknowledged it. */
  public final AtomicBoolean done = new AtomicBoolean();
  /** The call threw. */
  public final AtomicBoolean failed = new AtomicBoolean();
  private final Thread thread;

  private MkdirsCall(URI uri, String path) {
    thread = new Thread(() -> {
      try (FileSystem fs = FileSystem.newInstance(uri, MkdirsLoad.failFastClientConf())) {
        done.set(fs.mkdirs(new Path(path)));
      } catch (Exception e) {
        failed.set(true);
      }
    }, "mkdirs " + path);
  }

  /** Starts the call of {@code mkdirs(path)} against the NameNode at {@code uri}. */
  public static MkdirsCall start(URI uri, String path) {
    MkdirsCall c = new MkdirsCall(uri, path);
    c.thread.start();
    return c;
  }

  /** Waits at most {@code timeoutMs} for the call to return or throw. */
  public void join(long timeoutMs) throws InterruptedException {
    thread.join(timeoutMs);
  }
}
