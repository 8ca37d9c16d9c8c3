package io.nnaudit.format;

import java.nio.charset.StandardCharsets;

import io.nnaudit.AuditEvent;
import io.nnaudit.NnauditSettings;
import io.nnaudit.NnauditSettings.RecordPrefix;
import org.apache.hadoop.ipc.CallerContext;

/**
 * Turns an {@link AuditEvent} into one line of the stock {@code hdfs-audit.log} format, byte for byte what
 * {@code FSNamesystem.FSNamesystemAuditLogger} hands to log4j, plus the stock layout's prefix
 * {@code %d{ISO8601} %p %c{2}: } and a newline.
 *
 * <p>The single deliberate difference: ugi, cmd, owner, group and the tracking id, which the stock logger writes
 * raw, have their control characters escaped, so a hostile user name can never split a record or forge a field.
 * For any value without control characters the output is identical.
 *
 * <p>Not thread-safe (it caches the timestamp text): one instance per writer thread.
 */
public final class AuditRecordFormatter implements RecordFormatter {
  /** What {@code %p %c{2}: } prints for the stock audit logger. */
  static final String INFO_TAG = " INFO FSNamesystem.audit: ";
  static final String WARN_TAG = " WARN FSNamesystem.audit: ";

  private final boolean prefix;
  private final boolean callerContextEnabled;
  private final int callerContextMaxLen;
  private final int callerSignatureMaxLen;
  private final boolean trackingIdEnabled;
  private final Log4jTimestamp timestamp;

  public AuditRecordFormatter(NnauditSettings settings) {
    this(settings, new Log4jTimestamp());
  }

  public AuditRecordFormatter(NnauditSettings settings, Log4jTimestamp timestamp) {
    this.prefix = settings.recordPrefix() == RecordPrefix.LOG4J;
    this.callerContextEnabled = settings.callerContextEnabled();
    this.callerContextMaxLen = settings.callerContextMaxLen();
    this.callerSignatureMaxLen = settings.callerSignatureMaxLen();
    this.trackingIdEnabled = settings.trackingIdEnabled();
    this.timestamp = timestamp;
  }

  /** Appends the whole record: prefix, message and a newline. */
  @Override
  public void appendRecord(StringBuilder sb, AuditEvent e) {
    if (prefix) {
      timestamp.append(sb, e.timeMillis);
      sb.append(INFO_TAG);
    }
    appendMessage(sb, e);
    sb.append('\n');
  }

  /** Appends the message alone, exactly as the stock logger builds it. */
  public void appendMessage(StringBuilder sb, AuditEvent e) {
    sb.append("allowed=").append(e.allowed);
    sb.append("\tugi=");
    JavaEscaper.appendControlEscaped(sb, e.ugi);
    sb.append("\tip=");
    if (e.addr != null) {
      sb.append('/').append(e.addr.getHostAddress());
    } else {
      sb.append("null");
    }
    sb.append("\tcmd=");
    JavaEscaper.appendControlEscaped(sb, e.cmd);
    sb.append("\tsrc=");
    JavaEscaper.appendEscaped(sb, e.src);
    sb.append("\tdst=");
    JavaEscaper.appendEscaped(sb, e.dst);
    sb.append("\tperm=");
    if (e.hasStat) {
      JavaEscaper.appendControlEscaped(sb, e.owner);
      sb.append(':');
      JavaEscaper.appendControlEscaped(sb, e.group);
      sb.append(':').append(e.permission);
    } else {
      sb.append("null");
    }
    if (trackingIdEnabled) {
      sb.append("\ttrackingId=");
      JavaEscaper.appendControlEscaped(sb, e.trackingId);
    }
    sb.append("\tproto=").append(e.proto);
    CallerContext ctx = e.callerContext;
    if (callerContextEnabled && ctx != null && ctx.isContextValid()) {
      sb.append("\tcallerContext=");
      // The stock logger escapes first and truncates the escaped text.
      int start = sb.length();
      JavaEscaper.appendEscaped(sb, ctx.getContext());
      if (sb.length() - start > callerContextMaxLen) {
        sb.setLength(start + callerContextMaxLen);
      }
      byte[] signature = ctx.getSignature();
      if (signature != null && signature.length > 0 && signature.length <= callerSignatureMaxLen) {
        sb.append(':');
        JavaEscaper.appendEscaped(sb, new String(signature, StandardCharsets.UTF_8));
      }
    }
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
  public void appendDropRecord(StringBuilder sb, long nowMillis, long count, long fromMillis, long toMillis,
      long total) {
    if (prefix) {
      timestamp.append(sb, nowMillis);
      sb.append(WARN_TAG);
    }
    sb.append("nnaudit=dropped\tcount=").append(count).append("\tfrom=");
    timestamp.append(sb, fromMillis);
    sb.append("\tto=");
    timestamp.append(sb, toMillis);
    sb.append("\ttotal=").append(total).append('\n');
  }
}
