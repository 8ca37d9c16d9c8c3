package io.nnaudit;

import java.util.ArrayDeque;
import java.util.Deque;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What a test opened and leaves open: each thing is {@link #add added} as it is opened and closed after the
 * test, the last added first, so that a thing is closed before what it was built on. Every one is closed even
 * when one before it fails; the first failure is thrown, the others suppressed in it. Use as
 * {@code @RegisterExtension final Closer closer = new Closer();} and {@code sink = closer.add(openSink());}.
 *
 * <p>Threads: {@code open} is guarded by this object's lock, so a test may add from any thread; {@link #close}
 * takes the list under the lock and closes outside it, on the thread that calls it (JUnit's, after the test).
 * What is added while it closes is closed the next time.
 */
public final class Closer implements AfterEachCallback, AutoCloseable {
  private final Deque<AutoCloseable> open = new ArrayDeque<>();

  /** Closes {@code c} after the test (or at {@link #close}); returns it. */
  public synchronized <T extends AutoCloseable> T add(T c) {
    open.push(c);
    return c;
  }

  /** Closes everything added so far, the last added first. */
  @Override
  public void close() throws Exception {
    Deque<AutoCloseable> now;
    synchronized (this) {
      now = new ArrayDeque<>(open);
      open.clear();
    }
    Throwable failed = null;
    for (AutoCloseable c : now) {
      try {
        c.close();
      } catch (Exception | Error e) {
        if (failed == null) {
          failed = e;
        } else {
          failed.addSuppressed(e);
        }
      }
    }
    if (failed instanceof Error) {
      throw (Error) failed;
    }
    if (failed != null) {
      throw (Exception) failed;
    }
  }

  @Override
  public void afterEach(ExtensionContext context) throws Exception {
    close();
  }
}
