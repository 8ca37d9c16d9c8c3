package io.nnaudit.kafka;

import java.net.URI;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.HdfsConfiguration;

/**
 * A mutation load: client threads, each with a {@link FileSystem} of its own, calling {@code mkdirs} over RPC on
 * unique paths ({@code ROOT/cTHREAD/dN}) until stopped, counting the calls the NameNode acknowledged. A thread ends
 * at {@link #stop} or at its first exception (the NameNode was killed); the clients fail fast, so none hangs on a
 * NameNode that is gone. (The core's MkdirsLoad, for this module, which sees only public test helpers.)
 */
final class MkdirsClients implements AutoCloseable {
  private static final long JOIN_TIMEOUT_MS = 60_000;

  private final URI uri;
  private final String root;
  private final List<Thread> threads = new ArrayList<>();
  private final AtomicInteger acked = new AtomicInteger();
  private final List<String> endings = Collections.synchronizedList(new ArrayList<>());
  private volatile boolean stopping;

  private MkdirsClients(URI uri, int clients, String root) {
    this.uri = uri;
    this.root = root;
    for (int c = 0; c < clients; c++) {
      final int id = c;
      threads.add(new Thread(() -> run(id), "mkdirs-" + root + "-" + id));
    }
  }

  /** Starts {@code clients} threads against the NameNode at {@code uri}. */
  static MkdirsClients start(URI uri, int clients, String root) {
    MkdirsClients load = new MkdirsClients(uri, clients, root);
    load.threads.forEach(Thread::start);
    return load;
  }

  /** Waits until {@code n} calls are acknowledged; false on timeout or when every client has ended. */
  boolean awaitAcked(int n, long timeoutMs) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    while (acked.get() < n) {
      if (System.nanoTime() - deadline > 0 || threads.stream().noneMatch(Thread::isAlive)) {
        return false;
      }
      Thread.sleep(5); // the poll interval of this bounded wait
    }
    return true;
  }

  int acked() {
    return acked.get();
  }

  /** How the client threads that ended before {@link #stop} ended. */
  List<String> endings() {
    synchronized (endings) {
      return new ArrayList<>(endings);
    }
  }

  /** Tells the clients to stop after their current call and waits for them (every call is bounded). */
  void stop() throws InterruptedException {
    stopping = true;
    long deadline = System.currentTimeMillis() + JOIN_TIMEOUT_MS;
    for (Thread t : threads) {
      t.join(Math.max(1, deadline - System.currentTimeMillis()));
      if (t.isAlive()) {
        throw new AssertionError(t.getName() + " is still in a call " + JOIN_TIMEOUT_MS + " ms after stop");
      }
    }
  }

  @Override
  public void close() throws InterruptedException {
    stop();
  }

  private void run(int id) {
    try (FileSystem fs = FileSystem.newInstance(uri, failFast())) {
      for (int i = 0; !stopping; i++) {
        if (fs.mkdirs(new Path(root + "/c" + id + "/d" + i))) {
          acked.incrementAndGet();
        }
      }
    } catch (Exception e) {
      endings.add(e.getClass().getSimpleName() + ": " + e.getMessage());
    }
  }

  /** No connection retries, no retry policy, and an RPC timeout: a call to a killed NameNode fails at once. */
  private static Configuration failFast() {
    Configuration c = new HdfsConfiguration();
    c.setInt("ipc.client.connect.max.retries", 0);
    c.setInt("ipc.client.connect.max.retries.on.timeouts", 0);
    c.setBoolean("dfs.client.retry.policy.enabled", false);
    c.setInt("ipc.client.rpc-timeout.ms", 30_000);
    return c;
  }
}
