package io.nnaudit.format;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;

import org.apache.hadoop.fs.permission.FsPermission;
import io.nnaudit.event.AuditEvent;

/**
 * {@code nnaudit.record.format=hdfs}: turns an {@link AuditEvent} into one line of the stock
 * {@code hdfs-audit.log} format, byte for byte what
 * {@code FSNamesystem.FSNamesystemAuditLogger} hands to log4j, plus the stock layout's prefix
 * {@code %d{ISO8601} %p %c{2}: } and a newline.
 *
 * <p>The single deliberate difference: ugi, cmd, owner, group and the tracking id, which the stock logger writes
 * raw, have their control characters escaped, so a hostile user name can never split a record or forge a field.
 * For any value without control characters the output is identical.
 *
 * <p>Not thread-safe (it caches the timestamp, address and permission texts): one instance per writer thread.
 */
public final class HdfsRecordFormatter implements RecordFormatter {
  /** What {@code %p %c{2}: } prints for the stock audit logger. */
  static final String INFO_TAG = " INFO FSNamesystem.audit: ";
  static final String WARN_TAG = " WARN FSNamesystem.audit: ";
  private static final byte[] INFO = RecordBuffer.ascii(INFO_TAG);
  private static final byte[] WARN = RecordBuffer.ascii(WARN_TAG);
  private static final byte[] ALLOWED_TRUE = RecordBuffer.ascii("allowed=true\tugi=");
  private static final byte[] ALLOWED_FALSE = RecordBuffer.ascii("allowed=false\tugi=");
  private static final byte[] IP = RecordBuffer.ascii("\tip=");
  private static final byte[] CMD = RecordBuffer.ascii("\tcmd=");
  private static final byte[] SRC = RecordBuffer.ascii("\tsrc=");
  private static final byte[] DST = RecordBuffer.ascii("\tdst=");
  private static final byte[] PERM = RecordBuffer.ascii("\tperm=");
  private static final byte[] TRACKING_ID = RecordBuffer.ascii("\ttrackingId=");
  private static final byte[] PROTO = RecordBuffer.ascii("\tproto=");
  private static final byte[] CALLER_CONTEXT = RecordBuffer.ascii("\tcallerContext=");
  private static final byte[] NULL = RecordBuffer.ascii("null");
  private static final byte[] DROPPED = RecordBuffer.ascii("nnaudit=dropped\tcount=");
  /** Permission bits and the sticky bit: what {@link FsPermission#toShort()} can hold. */
  private static final int PERMISSION_SLOTS = 1 << 10;

  private final boolean prefix;
  private final CallerContextField callerContext;
  private final boolean trackingIdEnabled;
  private final Log4jTimestamp timestamp;
  /** The last client address and its text: one client's calls come in runs from the same InetAddress. */
  private InetAddress lastAddr;
  private byte[] lastAddrText;
  /** The text of a plain FsPermission by its bits, made on first use. */
  private final byte[][] permissionText = new byte[PERMISSION_SLOTS][];

  /** Prefixes carry the time in the JVM's zone. */
  public HdfsRecordFormatter(FormatOptions options) {
    this(options, new Log4jTimestamp());
  }

  public HdfsRecordFormatter(FormatOptions options, Log4jTimestamp timestamp) {
    this.prefix = options.log4jPrefix();
    this.callerContext = new CallerContextField(options);
    this.trackingIdEnabled = options.trackingIdEnabled();
    this.timestamp = timestamp;
  }

  /** Appends the whole record: prefix, message and a newline. */
  @Override
  public void appendRecord(RecordBuffer out, AuditEvent e) {
    if (prefix) {
      timestamp.append(out, e.timeMillis);
      out.append(INFO);
    }
    appendMessage(out, e);
    out.appendAscii('\n');
  }

  /** Appends the message alone, exactly as the stock logger builds it. */
  public void appendMessage(RecordBuffer out, AuditEvent e) {
    out.append(e.allowed ? ALLOWED_TRUE : ALLOWED_FALSE);
    JavaEscaper.appendControlEscaped(out, e.ugi);
    out.append(IP);
    if (e.addr != null) {
      out.append(addressText(e.addr));
    } else {
      out.append(NULL);
    }
    out.append(CMD);
    JavaEscaper.appendControlEscaped(out, e.cmd);
    out.append(SRC);
    JavaEscaper.appendEscaped(out, e.src);
    out.append(DST);
    JavaEscaper.appendEscaped(out, e.dst);
    out.append(PERM);
    if (e.hasStat) {
      JavaEscaper.appendControlEscaped(out, e.owner);
      out.appendAscii(':');
      JavaEscaper.appendControlEscaped(out, e.group);
      out.appendAscii(':');
      appendPermission(out, e.permission);
    } else {
      out.append(NULL);
    }
    if (trackingIdEnabled) {
      out.append(TRACKING_ID);
      JavaEscaper.appendControlEscaped(out, e.trackingId);
    }
    out.append(PROTO);
    JavaEscaper.appendControlEscaped(out, e.proto); // Hadoop's own words; escaped all the same: one line a record
    if (callerContext.shows(e.callerContext)) {
      out.append(CALLER_CONTEXT);
      callerContext.appendStock(out, e.callerContext);
    }
  }

  /** {@code "/" + addr.getHostAddress()}, as the stock line prints an InetAddress. */
  private byte[] addressText(InetAddress addr) {
    if (addr != lastAddr) {
      lastAddrText = ("/" + addr.getHostAddress()).getBytes(StandardCharsets.UTF_8);
      lastAddr = addr;
    }
    return lastAddrText;
  }

  /**
   * {@code String.valueOf(permission)}. A plain {@link FsPermission}'s text depends only on its bits, so it is
   * made once per bit pattern; a subclass may print more, so it is asked every time.
   */
  private void appendPermission(RecordBuffer out, FsPermission permission) {
    if (permission == null || permission.getClass() != FsPermission.class) {
      JavaEscaper.appendControlEscaped(out, String.valueOf(permission)); // a subclass's text: one line a record
      return;
    }
    int bits = permission.toShort() & (PERMISSION_SLOTS - 1);
    byte[] text = permissionText[bits];
    if (text == null) {
      text = permission.toString().getBytes(StandardCharsets.UTF_8);
      permissionText[bits] = text;
    }
    out.append(text);
  }

  /**
   * Appends the record that reports dropped events. It has the stock prefix at WARN, and its message starts
   * with {@code nnaudit=dropped} instead of {@code allowed=}, so no parser of the stock format can take it
   * for an operation:
   * <pre>2026-11-22 09:37:32,947 WARN FSNamesystem.audit: nnaudit=dropped	count=12	from=2026-11-22 09:37:30,001	to=2026-11-22 09:37:32,900	total=40</pre>
   * {@code count} events were dropped between {@code from} and {@code to} (the times of the first and last of
   * them); {@code total} is the running total since start-up.
   */
  @Override
  public void appendDropRecord(RecordBuffer out, long nowMillis, DropReport drops) {
    if (prefix) {
      timestamp.append(out, nowMillis);
      out.append(WARN);
    }
    out.append(DROPPED).append(drops.count).append("\tfrom=");
    timestamp.append(out, drops.fromMillis);
    out.append("\tto=");
    timestamp.append(out, drops.toMillis);
    out.append("\ttotal=").append(drops.total).appendAscii('\n');
  }
}
