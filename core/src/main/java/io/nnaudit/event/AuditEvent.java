package io.nnaudit.event;

import java.net.InetAddress;

import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.ipc.CallerContext;

import io.nnaudit.ack.AckTicket;

/**
 * One audit event, captured on the RPC handler thread and formatted later on the writer thread (or, under
 * {@code nnaudit.ack.policy=journal}, by the handler itself: see {@link #record()}).
 *
 * <p>Immutable once queued: every field but the journal's two is final and refers only to immutable values
 * ({@link String}, {@link InetAddress}, {@link CallerContext}) or to a {@link FsPermission} that the NameNode
 * built for this call alone, and those two are written once before the event is queued. Capturing costs a few
 * field reads; escaping and formatting are left to the writer, off the handler thread, unless journaled.
 */
public final class AuditEvent {
  /** Wall-clock time of the call, taken on the handler thread: the record's timestamp. */
  public final long timeMillis;
  public final boolean allowed;
  public final String ugi;
  public final InetAddress addr;
  public final String cmd;
  public final String src;
  public final String dst;
  /** True when the NameNode passed a FileStatus; the record then says {@code perm=owner:group:mode}. */
  public final boolean hasStat;
  public final String owner;
  public final String group;
  public final FsPermission permission;
  /** The token tracking id, or null; only read when tracking ids are enabled. */
  public final String trackingId;
  /** {@code rpc}, {@code webhdfs} or null, as {@code Server.getProtocol()} said on the handler thread. */
  public final String proto;
  /** The caller context when enabled and valid, else null. */
  public final CallerContext callerContext;
  /** How the operation waits for this record (nnaudit.ack.policy=write, durability=sync); else null. */
  public final AckTicket ticket;
  /**
   * What this event holds on the heap, roughly (the strings' characters and a fixed overhead): what the queue's
   * byte budget counts. A signature is at most hadoop.caller.context.signature.max.size bytes and counted in
   * the overhead.
   */
  public final long heapBytes;
  /**
   * Under {@code nnaudit.ack.policy=journal}: the record as its handler formatted it, and where its frame ends
   * in the journal ({@code io.nnaudit.journal.RecordJournal}); null and 0 otherwise. Written once by the handler,
   * under the journal's lock, before the event is queued: the queue publishes them with the event.
   */
  private byte[] record;
  private long journalEnd;

  public AuditEvent(long timeMillis, boolean allowed, String ugi, InetAddress addr, String cmd, String src,
      String dst, boolean hasStat, String owner, String group, FsPermission permission, String trackingId,
      String proto, CallerContext callerContext) {
    this(timeMillis, allowed, ugi, addr, cmd, src, dst, hasStat, owner, group, permission, trackingId, proto,
        callerContext, null);
  }

  public AuditEvent(long timeMillis, boolean allowed, String ugi, InetAddress addr, String cmd, String src,
      String dst, boolean hasStat, String owner, String group, FsPermission permission, String trackingId,
      String proto, CallerContext callerContext, AckTicket ticket) {
    this.timeMillis = timeMillis;
    this.allowed = allowed;
    this.ugi = ugi;
    this.addr = addr;
    this.cmd = cmd;
    this.src = src;
    this.dst = dst;
    this.hasStat = hasStat;
    this.owner = owner;
    this.group = group;
    this.permission = permission;
    this.trackingId = trackingId;
    this.proto = proto;
    this.callerContext = callerContext;
    this.ticket = ticket;
    this.heapBytes = FIXED_BYTES + 2L * (len(ugi) + len(cmd) + len(src) + len(dst) + len(owner) + len(group)
        + len(trackingId) + (callerContext == null ? 0 : len(callerContext.getContext())));
  }

  /** The journal: this event's record and its frame's end; the handler, before it queues the event. */
  public void journaled(byte[] formatted, long end) {
    this.record = formatted;
    this.journalEnd = end;
  }

  /** The record its handler formatted, or null: the writer formats it. */
  public byte[] record() {
    return record;
  }

  /** Where this event's journal frame ends; 0 when it is not journaled. */
  public long journalEnd() {
    return journalEnd;
  }

  /** The same event, with {@code t} as its ticket: for a record the journal could not take. */
  public AuditEvent withTicket(AckTicket t) {
    return new AuditEvent(timeMillis, allowed, ugi, addr, cmd, src, dst, hasStat, owner, group, permission,
        trackingId, proto, callerContext, t);
  }

  /** The event object, its references and a small caller-context signature. */
  static final long FIXED_BYTES = 256;

  private static int len(String s) {
    return s == null ? 0 : s.length();
  }
}
