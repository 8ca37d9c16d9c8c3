package io.nnaudit.format;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import io.nnaudit.AuditEvent;
import io.nnaudit.NnauditSettings;
import org.apache.hadoop.ipc.CallerContext;

/**
 * {@code nnaudit.record.format=json}: one JSON object per line, written with Jackson's streaming
 * {@link JsonGenerator} (Jackson ships with Hadoop). Field names are stable:
 * <pre>
 * {"time":"2026-11-22T09:37:32.947Z","allowed":true,"ugi":"root (auth:SIMPLE)","ip":"127.0.0.1",
 *  "cmd":"mkdirs","src":"/a/b","dst":null,"perm":{"owner":"root","group":"supergroup","mode":"rwxr-xr-x"},
 *  "proto":"rpc","callerContext":"job_1","callerSignature":"sig","trackingId":"..."}
 * </pre>
 * {@code time} is ISO-8601 with milliseconds and offset, the time of the call; {@code allowed} is a boolean;
 * {@code ip} has no leading slash; absent values are JSON null; {@code perm} is null when the NameNode passed no
 * FileStatus. {@code trackingId} is present only with {@code dfs.namenode.audit.log.token.tracking.id=true};
 * {@code callerContext} (cut to {@code hadoop.caller.context.max.size}) and {@code callerSignature} only under
 * the stock caller-context rules. Every character outside printable ASCII is written as a {@code \\uXXXX}
 * escape, so unpaired surrogates and control characters survive and each record stays on one line.
 *
 * <p>A drop report is {@code {"time":...,"nnaudit":"dropped","count":12,"from":...,"to":...,"total":40}}; an
 * operation record never has an {@code nnaudit} field.
 */
public final class JsonRecordFormatter implements RecordFormatter {
  private final JsonFactory factory = JsonFactory.builder().enable(JsonWriteFeature.ESCAPE_NON_ASCII).build();
  private final IsoTimestamp time;
  private final boolean callerContextEnabled;
  private final int callerContextMaxLen;
  private final int callerSignatureMaxLen;
  private final boolean trackingIdEnabled;
  private final BuilderWriter out = new BuilderWriter();

  public JsonRecordFormatter(NnauditSettings settings) {
    this(settings, new IsoTimestamp());
  }

  public JsonRecordFormatter(NnauditSettings settings, IsoTimestamp time) {
    this.time = time;
    this.callerContextEnabled = settings.callerContextEnabled();
    this.callerContextMaxLen = settings.callerContextMaxLen();
    this.callerSignatureMaxLen = settings.callerSignatureMaxLen();
    this.trackingIdEnabled = settings.trackingIdEnabled();
  }

  @Override
  public void appendRecord(RecordBuffer sb, AuditEvent e) {
    out.target = sb;
    try (JsonGenerator g = factory.createGenerator(out)) {
      g.writeStartObject();
      g.writeStringField("time", time.format(e.timeMillis));
      g.writeBooleanField("allowed", e.allowed);
      g.writeStringField("ugi", e.ugi);
      g.writeStringField("ip", e.addr == null ? null : e.addr.getHostAddress());
      g.writeStringField("cmd", e.cmd);
      g.writeStringField("src", e.src);
      g.writeStringField("dst", e.dst);
      if (e.hasStat) {
        g.writeObjectFieldStart("perm");
        g.writeStringField("owner", e.owner);
        g.writeStringField("group", e.group);
        g.writeStringField("mode", e.permission == null ? null : e.permission.toString());
        g.writeEndObject();
      } else {
        g.writeNullField("perm");
      }
      g.writeStringField("proto", e.proto);
      CallerContext ctx = e.callerContext;
      if (callerContextEnabled && ctx != null && ctx.isContextValid()) {
        String c = ctx.getContext();
        g.writeStringField("callerContext", c.length() > callerContextMaxLen ? c.substring(0, callerContextMaxLen) : c);
        byte[] sig = ctx.getSignature();
        if (sig != null && sig.length > 0 && sig.length <= callerSignatureMaxLen) {
          g.writeStringField("callerSignature", new String(sig, StandardCharsets.UTF_8));
        }
      }
      if (trackingIdEnabled) {
        g.writeStringField("trackingId", e.trackingId);
      }
      g.writeEndObject();
    } catch (IOException ex) {
      throw new UncheckedIOException(ex); // cannot happen: the target is memory
    }
    sb.append('\n');
  }

  @Override
  public void appendDropRecord(RecordBuffer sb, long nowMillis, long count, long fromMillis, long toMillis,
      long total) {
    out.target = sb;
    try (JsonGenerator g = factory.createGenerator(out)) {
      g.writeStartObject();
      g.writeStringField("time", time.format(nowMillis));
      g.writeStringField("nnaudit", "dropped");
      g.writeNumberField("count", count);
      g.writeStringField("from", time.format(fromMillis));
      g.writeStringField("to", time.format(toMillis));
      g.writeNumberField("total", total);
      g.writeEndObject();
    } catch (IOException ex) {
      throw new UncheckedIOException(ex);
    }
    sb.append('\n');
  }

  /** A Writer onto the writer thread's batch (ESCAPE_NON_ASCII makes every char ASCII). */
  private static final class BuilderWriter extends Writer {
    RecordBuffer target;

    @Override
    public void write(char[] cbuf, int off, int len) {
      target.append(cbuf, off, len);
    }

    @Override
    public void write(String str, int off, int len) {
      target.append(str, off, off + len);
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
    }
  }
}
