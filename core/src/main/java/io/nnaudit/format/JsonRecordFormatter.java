package io.nnaudit.format;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import org.apache.hadoop.ipc.CallerContext;
import io.nnaudit.event.AuditEvent;

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
 * {@code callerContext} and {@code callerSignature} only under the stock caller-context rules, cut where the
 * stock line cuts ({@link CallerContextField}). Every character below 0x20 or above 0x7F is escaped (JSON's
 * {@code \n}, {@code \t}, ... or {@code \}{@code uXXXX}), so every line is ASCII, unpaired surrogates survive and no
 * character in a value can end a line for any reader. DEL (0x7F), which JSON allows raw and no reader takes
 * for a line end, is written raw.
 *
 * <p>A drop report is {@code {"time":...,"nnaudit":"dropped","count":12,"from":...,"to":...,"total":40}}; an
 * operation record never has an {@code nnaudit} field.
 */
public final class JsonRecordFormatter implements RecordFormatter {
  private final JsonFactory factory = JsonFactory.builder().enable(JsonWriteFeature.ESCAPE_NON_ASCII).build();
  private final IsoTimestamp time;
  private final CallerContextField callerContext;
  private final boolean trackingIdEnabled;
  private final BufferWriter writer = new BufferWriter();

  /** Times carry the JVM zone's offset. */
  public JsonRecordFormatter(FormatOptions options) {
    this(options, new IsoTimestamp());
  }

  public JsonRecordFormatter(FormatOptions options, IsoTimestamp time) {
    this.time = time;
    this.callerContext = new CallerContextField(options);
    this.trackingIdEnabled = options.trackingIdEnabled();
  }

  @Override
  public void appendRecord(RecordBuffer out, AuditEvent e) {
    writer.target = out;
    try (JsonGenerator g = factory.createGenerator(writer)) {
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
      if (callerContext.shows(ctx)) {
        g.writeStringField("callerContext", callerContext.jsonContext(ctx));
        String signature = callerContext.signature(ctx);
        if (signature != null) {
          g.writeStringField("callerSignature", signature);
        }
      }
      if (trackingIdEnabled) {
        g.writeStringField("trackingId", e.trackingId);
      }
      g.writeEndObject();
    } catch (IOException ex) {
      throw new UncheckedIOException(ex); // cannot happen: the target is memory
    }
    out.append('\n');
  }

  @Override
  public void appendDropRecord(RecordBuffer out, long nowMillis, DropReport drops) {
    writer.target = out;
    try (JsonGenerator g = factory.createGenerator(writer)) {
      g.writeStartObject();
      g.writeStringField("time", time.format(nowMillis));
      g.writeStringField("nnaudit", "dropped");
      g.writeNumberField("count", drops.count);
      g.writeStringField("from", time.format(drops.fromMillis));
      g.writeStringField("to", time.format(drops.toMillis));
      g.writeNumberField("total", drops.total);
      g.writeEndObject();
    } catch (IOException ex) {
      throw new UncheckedIOException(ex);
    }
    out.append('\n');
  }

  /** A Writer onto the writer thread's batch (ESCAPE_NON_ASCII makes every char ASCII). */
  private static final class BufferWriter extends Writer {
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
