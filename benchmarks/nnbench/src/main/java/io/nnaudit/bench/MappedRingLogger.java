package io.nnaudit.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.security.token.delegation.DelegationTokenSecretManager;
import org.apache.hadoop.hdfs.server.namenode.HdfsAuditLogger;
import org.apache.hadoop.ipc.CallerContext;
import org.apache.hadoop.ipc.Server;
import org.apache.hadoop.security.UserGroupInformation;

import io.nnaudit.event.AuditEvent;
import io.nnaudit.format.FormatOptions;
import io.nnaudit.format.HdfsRecordFormatter;
import io.nnaudit.format.RecordBuffer;

/**
 * The {@code mapped-ring} variant of {@code benchmarks/nn_compare.py}: what a logger costs the NameNode when each
 * handler formats its stock record and copies it into a ring in a file mapped shared (where a kill -9 of the
 * process cannot lose it, as after a write(2)) and returns at once, and one thread writes what the ring holds to
 * the audit file ({@code nnaudit.file.path}) every {@link #DRAIN_MS} ms in one write(2). A measuring instrument for
 * benchmarks/experiments/mapped-ring, not a logger: nothing replays the ring after a crash, and it has no
 * settings, rotation, metrics or failure handling.
 *
 * <p>Design note. What blocks: a handler, for the ring's monitor (held for one copy) and, when the ring is full,
 * until the drain thread has made room (it is woken); an interrupt ends neither, and nothing bounds the second
 * wait (a drain thread ended by a failed write leaves the handlers waiting: an instrument, not a logger). What
 * drops: nothing. Shut-down: none; the drain thread is a daemon, and what it has not written when the JVM ends is
 * lost. Who owns what: {@link #committed} and the ring's
 * bytes are written under the monitor; {@link #drained} by the drain thread, read by handlers under the monitor
 * (volatile).
 */
public class MappedRingLogger extends HdfsAuditLogger {
  /** The ring's size: 4000 stock records. */
  static final int RING_BYTES = 1 << 20;
  /** How often the drain thread writes what the ring holds. */
  static final long DRAIN_MS = 20;

  private final ThreadLocal<HdfsRecordFormatter> formatter = ThreadLocal.withInitial(
      () -> new HdfsRecordFormatter(FormatOptions.builder().log4jPrefix(true).build()));
  private final ThreadLocal<RecordBuffer> text = ThreadLocal.withInitial(RecordBuffer::new);
  private MappedByteBuffer ring;
  private FileChannel audit;
  /** Bytes ever copied into the ring. Under the monitor. */
  private long committed;
  /** Bytes ever written from the ring to the audit file. The drain thread. */
  private volatile long drained;
  private Thread drainer;

  @Override
  public void initialize(Configuration conf) {
    try {
      Path path = Paths.get(conf.get("nnaudit.file.path"));
      audit = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
      Path ringPath = Paths.get(path + ".ring");
      try (FileChannel ch = FileChannel.open(ringPath, StandardOpenOption.CREATE, StandardOpenOption.READ,
          StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
        ByteBuffer zeros = ByteBuffer.allocateDirect(RING_BYTES);
        while (zeros.hasRemaining()) {
          ch.write(zeros, zeros.position());
        }
        ring = ch.map(FileChannel.MapMode.READ_WRITE, 0, RING_BYTES); // stays mapped once the channel closes
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    drainer = new Thread(this::drain, "nnaudit-writer[mapped-ring]");
    drainer.setDaemon(true);
    drainer.start();
  }

  @Override
  public void logAuditEvent(boolean succeeded, String userName, InetAddress addr, String cmd, String src,
      String dst, FileStatus stat, UserGroupInformation ugi, DelegationTokenSecretManager dtSecretManager) {
    logAuditEvent(succeeded, userName, addr, cmd, src, dst, stat, null, ugi, dtSecretManager);
  }

  @Override
  public void logAuditEvent(boolean succeeded, String userName, InetAddress addr, String cmd, String src,
      String dst, FileStatus stat, CallerContext callerContext, UserGroupInformation ugi,
      DelegationTokenSecretManager dtSecretManager) {
    long now = System.currentTimeMillis();
    boolean hasStat = stat != null;
    FsPermission perm = hasStat ? stat.getPermission() : null;
    AuditEvent e = new AuditEvent(now, succeeded, userName, addr, cmd, src, dst, hasStat,
        hasStat ? stat.getOwner() : null, hasStat ? stat.getGroup() : null, perm, null, Server.getProtocol(), null);
    RecordBuffer out = text.get();
    out.setLength(0);
    formatter.get().appendRecord(out, e);
    copy(out.asByteBuffer());
  }

  private synchronized void copy(ByteBuffer record) {
    int n = record.remaining();
    boolean interrupted = false;
    while (committed + n - drained > RING_BYTES) {
      LockSupport.unpark(drainer);
      try {
        wait(1);
      } catch (InterruptedException ie) {
        interrupted = true; // no wait ends without the record in the ring; the flag goes back to the caller
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    int at = (int) (committed % RING_BYTES);
    int first = Math.min(n, RING_BYTES - at);
    ByteBuffer r = ring.duplicate();
    r.position(at);
    ByteBuffer part = record.duplicate();
    part.limit(part.position() + first);
    r.put(part);
    if (first < n) {
      r.position(0);
      record.position(record.position() + first);
      r.put(record);
    }
    committed += n;
  }

  private void drain() {
    ByteBuffer out = ByteBuffer.allocateDirect(RING_BYTES);
    while (true) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(DRAIN_MS));
      long upTo;
      synchronized (this) {
        upTo = committed;
      }
      long from = drained;
      if (upTo == from) {
        continue;
      }
      out.clear();
      int at = (int) (from % RING_BYTES);
      int n = (int) (upTo - from);
      int first = Math.min(n, RING_BYTES - at);
      ByteBuffer r = ring.duplicate();
      r.position(at).limit(at + first);
      out.put(r);
      if (first < n) {
        r.clear();
        r.limit(n - first);
        out.put(r);
      }
      out.flip();
      try {
        while (out.hasRemaining()) {
          audit.write(out);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      drained = upTo;
      synchronized (this) {
        notifyAll();
      }
    }
  }
}
