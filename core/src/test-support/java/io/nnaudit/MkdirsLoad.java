package io.nnaudit;

import java.net.URI;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.HdfsConfiguration;

/**
 * A mutation load for the fault tests: client threads, each with a {@link FileSystem} of its own, calling
 * {@code mkdirs} on unique paths ({@code ROOT/cTHREAD/dN}) until stopped, and keeping the paths whose call
 * returned true: the operations the NameNode acknowledged. A thread ends at {@link #stop} or at its first
 * exception (the NameNode went away); the clients fail fast, so none hangs once it is gone.
 */
public final class MkdirsLoad implements AutoCloseable {
  private static final long JOIN_TIMEOUT_MS = 60_000;

  private final URI uri;
  private final Configuration conf;
  private final String root;
  private final List<Thread> threads = new ArrayList<>();
  private final Set<String> acked = ConcurrentHashMap.newKeySet();
  private final List<String> endings = Collections.synchronizedList(new ArrayList<>());
  private volatile boolean stopping;

  /** {@code clients} threads against the NameNode at {@code uri}, with {@link #failFastClientConf()}. */
  public MkdirsLoad(URI uri, int clients, String root) {
    this.uri = uri;
    this.conf = failFastClientConf();
    this.root = root;
    for (int c = 0; c < clients; c++) {
      final int id = c;
      threads.add(new Thread(() -> run(id), "mkdirs-load-" + id));
    }
  }

  /**
   * A client that gives up at once when the NameNode is gone: no connection retries, no retry policy, and an
   * RPC timeout so that no call waits forever for a NameNode that stopped answering.
   */
  public static Configuration failFastClientConf() {
    Configuration c = new HdfsConfiguration();
    c.setInt("ipc.client.connect.max.retries", 0);
    c.setInt("ipc.client.connect.max.retries.on.timeouts", 0);
    c.setBoolean("dfs.client.retry.policy.enabled", false);
    c.setInt("ipc.client.rpc-timeout.ms", 30_000);
    return c;
  }

  public MkdirsLoad start() {
    for (Thread t : threads) {
      t.start();
    }
    return this;
  }

  /** Waits until {@code n} operations are acknowledged; false on timeout or when every client has ended. */
  public boolean awaitAcked(int n, long timeoutMs) throws InterruptedException {
    long deadline = System.currentTimeMillis() + timeoutMs;
    while (acked.size() < n) {
      if (System.currentTimeMillis() > deadline || threads.stream().noneMatch(Thread::isAlive)) {
        return false;
      }
      Thread.sleep(5); // the poll interval of this bounded wait
    }
    return true;
  }

  public int ackedCount() {
    return acked.size();
  }

  /** The acknowledged paths; final once {@link #stop} has returned. */
  public Set<String> acked() {
    return acked;
  }

  /** How each client thread that did not end by {@link #stop} ended: the exception's class and message. */
  public List<String> endings() {
    synchronized (endings) {
      return new ArrayList<>(endings);
    }
  }

  /** Tells the clients to stop after their current call and waits for them (each call is bounded). */
  public void stop() throws InterruptedException {
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
    try (FileSystem fs = FileSystem.newInstance(uri, conf)) {
      for (int i = 0; !stopping; i++) {
        String p = root + "/c" + id + "/d" + i;
        if (fs.mkdirs(new Path(p))) {
          acked.add(p);
        }
      }
    } catch (Exception e) {
      endings.add(e.getClass().getSimpleName() + ": " + e.getMessage());
    }
  }
}
