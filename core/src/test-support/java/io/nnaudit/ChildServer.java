package io.nnaudit;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.function.Supplier;

/**
 * What the tests that run a server in a process of its own (a NameNode, Prometheus) share: a free port to give
 * it, and the last step of its start, a bounded wait until it answers, after which the server is stopped if it
 * never did. Stateless.
 */
public final class ChildServer {
  private ChildServer() {
  }

  /** One look at the server: true once it is ready; an {@link IOException} while it does not answer yet. */
  public interface Probe {
    boolean ready() throws Exception;
  }

  /** A wait for a server just started, which throws when it is not ready. */
  public interface Wait<S> {
    void await(S server) throws Exception;
  }

  /** A port nothing listens on now, for a server to listen on. */
  public static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** {@code server} once {@code wait} returns; if it throws, the server is closed (its process stopped) first. */
  public static <S extends AutoCloseable> S readyOrClosed(S server, Wait<S> wait) throws Exception {
    try {
      wait.await(server);
      return server;
    } catch (Throwable t) {
      server.close();
      throw t;
    }
  }

  /**
   * Asks {@code probe} every {@code pollMs} until it says ready. An {@link AssertionError} naming {@code what},
   * with {@code output} (what the process printed), when the process exits first or {@code timeoutMs} pass.
   */
  public static void awaitReady(String what, Process process, Supplier<String> output, long timeoutMs, long pollMs,
      Probe probe) throws Exception {
    long deadline = System.currentTimeMillis() + timeoutMs;
    IOException last = null;
    while (true) {
      if (!process.isAlive()) {
        throw new AssertionError(what + " exited with " + process.exitValue() + "; its output:\n" + output.get());
      }
      try {
        if (probe.ready()) {
          return;
        }
      } catch (IOException notYet) {
        last = notYet;
      }
      if (System.currentTimeMillis() >= deadline) {
        throw new AssertionError(what + " was not ready within " + timeoutMs + " ms (last: " + last
            + "); its output:\n" + output.get());
      }
      Thread.sleep(pollMs); // the poll interval of this bounded wait
    }
  }
}
