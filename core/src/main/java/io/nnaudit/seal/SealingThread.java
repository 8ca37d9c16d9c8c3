package io.nnaudit.seal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link Sealer} on a thread of its own, so that hashing what is written (SHA-256 over every byte) and
 * signing seals costs the writing thread, which may be a NameNode handler holding the pipeline's write lock,
 * only a copy of the bytes it wrote. The file sink hands over, in the order it writes them, copies of the
 * written bytes, with where the writer's records end in them so that they need not be searched for
 * ({@link #written}), and requests ({@link #seal}, {@link #startFile}, {@link #close}); the
 * sealing thread applies them to the Sealer in that order, and seals by itself when the interval in records or
 * time is reached.
 *
 * <p>Design note.
 * <ul>
 * <li>What blocks: a write only copies its bytes and queues them, without waking the sealing thread, which
 * naps whenever it has hashed everything ({@link #napNanos}: 100 ms at the default interval). The sink's
 * writing thread waits (a) in {@link #written} while more than
 * {@link #MAX_QUEUED_BYTES} of copies wait to be hashed, until the sealing thread has hashed enough (it hashes
 * several hundred MB/s), and (b) in a request, until the sealing thread has hashed everything before it and
 * done it: a seal before a rotation, at close, at the shutdown hook's hand-over and after each direct write
 * after it. Wait (a) lasts as long as hashing what is queued takes (milliseconds), or, like the write(2) and
 * the fsync themselves, as long as a hung digest write holds the sealing thread; wait (b) lasts at most
 * {@code REQUEST_WAIT_MS} (30 s), after which the request fails as a seal that cannot be written does.</li>
 * <li>What drops: nothing. Under fail-closed a seal that fails is remembered ({@link #failure}); the sink then
 * asks for a seal before each write ({@link #checkBeforeWrite}), which throws while sealing keeps failing, so
 * no record is written unsealed beyond one interval and a nap. Under fail-open the Sealer counts the failure and
 * the next seal covers everything.</li>
 * <li>Shut-down order: {@link #close} asks for the CLOSE seal, waits for it, then stops the thread, which closes
 * the digest last. The thread is a daemon: during the JVM's shutdown hooks it still runs, so the hook's
 * hand-over and direct writes are sealed.</li>
 * <li>Who owns what: the Sealer and everything in it belong to the sealing thread once it runs (before, to the
 * thread that built the sink, which resumed the chain; after it has ended, to the thread that closes), handed
 * over by {@link Sealer#handTo}, which the Sealer's assertions check; the queue and the byte count are thread-safe;
 * {@link #failure} is volatile, written by the sealing thread, read by the sink's writing thread.</li>
 * <li>Interrupts: nothing in nnaudit interrupts the sealing thread (only {@link #close} ends it), so one from
 * elsewhere is stray: cleared before each piece of work and after each nap, and a seal's step that one cuts
 * short is taken again ({@link Sealer}).</li>
 * </ul>
 */
public final class SealingThread {
  private static final Logger LOG = LoggerFactory.getLogger(SealingThread.class);
  /** Copies of written bytes waiting to be hashed, at most (one copy larger than this goes in alone). */
  static final long MAX_QUEUED_BYTES = 16L << 20;
  /**
   * The longest a request waits for the sealing thread (which may be in a hung fsync of the digest); then it
   * fails as a seal that cannot be written does.
   */
  static final long REQUEST_WAIT_MS = 30_000;
  /** The longest nap: at a NameNode's pace most of the sealing thread's cost per second is its wake-ups. */
  static final long MAX_NAP_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
  /** The shortest nap, for a short nnaudit.seal.interval.ms. */
  static final long MIN_NAP_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

  /**
   * How long the thread sleeps when it has hashed everything: a tenth of the interval in time, within
   * [{@link #MIN_NAP_NANOS}, {@link #MAX_NAP_NANOS}], so that a seal due by time is at most that late. A write
   * does not wake it (a wake-up costs more CPU than hashing a batch), a request and a full queue do.
   */
  private final long napNanos;

  private final Sealer sealer;
  private final boolean failClosed;
  private final ConcurrentLinkedQueue<Object> queue = new ConcurrentLinkedQueue<>();
  private final AtomicLong queuedBytes = new AtomicLong();
  private final Object space = new Object();
  private final Thread thread;
  /** Under fail-closed, the failure of the latest seal, or null once one works. Written by the sealing thread. */
  private volatile IOException failure;
  private volatile boolean stopped;

  /** Starts the thread; {@code sealer} has resumed its chain already. */
  public SealingThread(Sealer sealer, boolean failClosed, String name) {
    this.sealer = sealer;
    this.failClosed = failClosed;
    this.napNanos = napNanos(sealer.intervalNanos());
    this.thread = new Thread(this::run, name);
    thread.setDaemon(true);
    sealer.handTo(thread);
    try {
      thread.start();
    } catch (RuntimeException | Error e) {
      sealer.handTo(Thread.currentThread()); // never ran: the Sealer is still this thread's, to close
      throw e;
    }
  }

  /** Something the writing thread waits for: done by the sealing thread in the order it was asked. */
  private abstract static class Request {
    private IOException thrown;
    private boolean done;

    abstract void apply(Sealer s) throws IOException;

    synchronized void finish(IOException e) {
      thrown = e;
      done = true;
      notifyAll();
    }

    /** Waits until done, at most {@link #REQUEST_WAIT_MS}; then fails (the request is still done later). */
    synchronized void await() throws IOException {
      boolean interrupted = false;
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(REQUEST_WAIT_MS);
      long left;
      while (!done && (left = deadline - System.nanoTime()) > 0) {
        try {
          TimeUnit.NANOSECONDS.timedWait(this, left);
        } catch (InterruptedException e) {
          interrupted = true; // a handler's interrupt: kept for its caller, the seal is still waited for
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
      if (!done) {
        throw new IOException("the sealing thread did not answer within " + REQUEST_WAIT_MS + " ms");
      }
      if (thrown != null) {
        throw new IOException(thrown.getMessage(), thrown);
      }
    }
  }

  private static final class Stop extends Request {
    @Override
    void apply(Sealer s) {
      s.closeDigest();
    }
  }

  /** What the writing thread wrote, copied for the sealing thread: the bytes, and where their records end. */
  private static final class Written {
    final byte[] bytes;
    /** Offsets in {@link #bytes} just past each record's newline; null when the writer did not say. */
    final int[] ends;

    Written(byte[] bytes, int[] ends) {
      this.bytes = bytes;
      this.ends = ends;
    }
  }

  /**
   * A copy of the bytes just written (the remaining bytes of {@code bytes}) for the sealing thread to hash, with
   * where their records end ({@code ends}: offsets from its position, each just past a newline; null when not
   * known), which the caller gives away; waits while too much is queued.
   */
  public void written(ByteBuffer bytes, int[] ends) {
    if (!thread.isAlive()) {
      return; // sealing is over (closed): nothing will hash it
    }
    Written copy = new Written(copyOf(bytes), ends);
    int length = copy.bytes.length;
    if (full(length)) {
      synchronized (space) {
        boolean interrupted = false;
        while (full(length) && thread.isAlive()) {
          LockSupport.unpark(thread); // at every look: a permit spent elsewhere must not leave it napping
          try {
            space.wait(10);
          } catch (InterruptedException e) {
            interrupted = true;
          }
        }
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
      }
    }
    queuedBytes.addAndGet(length);
    queue.add(copy);
  }

  /** The remaining bytes of {@code b}: from its array without zeroing a new one first where it has one. */
  private static byte[] copyOf(ByteBuffer b) {
    if (b.hasArray()) {
      int from = b.arrayOffset() + b.position();
      return Arrays.copyOfRange(b.array(), from, from + b.remaining());
    }
    byte[] copy = new byte[b.remaining()];
    b.duplicate().get(copy);
    return copy;
  }

  /**
   * Whether a copy of {@code bytes} would take the queue past {@link #MAX_QUEUED_BYTES} (a copy larger than that
   * goes in alone), so that what a kill can leave unhashed stays within {@link Sealer#TAIL_BYTES}.
   */
  private boolean full(int bytes) {
    long queued = queuedBytes.get();
    return queued > 0 && queued + bytes > MAX_QUEUED_BYTES;
  }

  /**
   * Seals what is written so far, once the sealing thread has hashed it. Under fail-closed throws when the
   * seal cannot be written; under fail-open the Sealer counts the failure and this returns.
   */
  public void seal(Seal.Kind kind) throws IOException {
    call(new Request() {
      @Override
      void apply(Sealer s) throws IOException {
        s.seal(kind);
      }
    });
  }

  /**
   * The last seal of a file about to be rotated, written whatever the failure policy or the rotation fails:
   * see {@link Sealer#sealForRotation} ({@code keptFiles} 0: the rotation deletes nothing).
   */
  public void sealForRotation(int keptFiles) throws IOException {
    call(new Request() {
      @Override
      void apply(Sealer s) throws IOException {
        s.sealForRotation(keptFiles);
      }
    });
  }

  /** The sink switched to a new file: see {@link Sealer#startFile}. */
  public void startFile(Path auditPath, long size, Sealer.DigestOpener opener) throws IOException {
    call(new Request() {
      @Override
      void apply(Sealer s) throws IOException {
        s.startFile(auditPath, size, opener);
      }
    });
  }

  /** The sink reopened the same file: see {@link Sealer#reopened}. */
  public void reopened(Path auditPath, long size, long owned) throws IOException {
    call(new Request() {
      @Override
      void apply(Sealer s) throws IOException {
        s.reopened(auditPath, size, owned);
      }
    });
  }

  /**
   * Before a write, under fail-closed: while the latest seal failed, tries one now (the sealing thread first
   * hashes what is queued) and throws if it fails too, so that nothing more is written unsealed.
   */
  public void checkBeforeWrite() throws IOException {
    if (!thread.isAlive()) {
      throw new IOException("the sealing thread has ended: the audit file is closed to sealed writes");
    }
    if (sealer.startSealOwed()) { // under either policy: the start's seal covers what it found, and nothing else
      seal(Seal.Kind.INTERVAL); // writes the owed seal, if it can now
      if (sealer.startSealOwed()) {
        throw new IOException("the seal of what the start found in the audit file cannot be written yet", failure);
      }
    }
    if (failClosed && (failure != null || sealer.failing())) {
      seal(Seal.Kind.INTERVAL);
      if (sealer.failing()) {
        throw new IOException("the audit file cannot be sealed", failure);
      }
    }
  }

  /**
   * Seals what is not yet sealed ({@link Seal.Kind#CLOSE}), then stops the thread, which closes the digest (or,
   * if the thread has ended already, closes it here). Throws the CLOSE seal's failure, after stopping.
   */
  public void close() throws IOException {
    IOException failed = null;
    try {
      seal(Seal.Kind.CLOSE);
    } catch (IOException e) {
      failed = e;
    }
    if (thread.isAlive()) {
      try {
        call(new Stop());
      } catch (IOException e) {
        failed = failed != null ? failed : e;
      }
    }
    stopped = true;
    LockSupport.unpark(thread);
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (!thread.isAlive()) {
      sealer.handTo(Thread.currentThread()); // the thread is gone (joined): nothing else touches the Sealer
      sealer.closeDigest(); // done already by a Stop
    }
    if (failed != null) {
      throw failed;
    }
  }

  private void call(Request r) throws IOException {
    if (!thread.isAlive()) {
      throw new IOException("the sealing thread has ended");
    }
    queue.add(r);
    LockSupport.unpark(thread);
    r.await();
  }

  private void run() {
    while (!stopped) {
      Thread.interrupted(); // only close() ends the thread: a stray interrupt must not close the seal's channels
      try {
        Object next = queue.poll();
        if (next == null) {
          sealWhenDue();
          LockSupport.parkNanos(this, napNanos);
          Thread.interrupted(); // only close() ends the thread; a stray interrupt must not make every park return
        } else if (next instanceof Written) {
          Written w = (Written) next;
          try {
            sealer.written(ByteBuffer.wrap(w.bytes), w.ends);
          } finally {
            if (queuedBytes.addAndGet(-w.bytes.length) <= MAX_QUEUED_BYTES) {
              synchronized (space) {
                space.notifyAll();
              }
            }
          }
          sealWhenDue();
        } else if (next instanceof Request) {
          Request r = (Request) next;
          try {
            r.apply(sealer);
            settled();
            r.finish(null);
          } catch (IOException e) {
            failure = e;
            r.finish(e);
          } catch (Throwable e) {
            IOException wrapped = new IOException("sealing failed: " + e, e);
            failure = wrapped;
            r.finish(wrapped);
          }
          if (r instanceof Stop) {
            return;
          }
        }
      } catch (Throwable t) {
        failure = new IOException("the sealing thread failed: " + t, t);
        LOG.error("nnaudit: the sealing thread caught an unexpected error; it goes on", t);
      }
    }
  }

  /** The nap for a seal interval of {@code intervalNanos}. */
  static long napNanos(long intervalNanos) {
    return Math.max(MIN_NAP_NANOS, Math.min(MAX_NAP_NANOS, intervalNanos / 10));
  }

  /** The interval's seal, if due; under fail-closed a failure is kept for the writer to meet. */
  private void sealWhenDue() {
    try {
      sealer.sealIfDue();
      settled();
    } catch (IOException e) {
      failure = e; // counted and logged by the Sealer
    }
  }

  /** Forgets a failure once sealing works again: not while the latest seal tried failed and none worked since. */
  private void settled() {
    if (!sealer.failing()) {
      failure = null;
    }
  }
}
