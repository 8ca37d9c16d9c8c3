package io.nnaudit;

import static io.nnaudit.AuditTestSupport.logCreate;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.nnaudit.sink.AuditSink;
import io.nnaudit.sink.SinkContext;
import io.nnaudit.sink.SinkFactory;

/**
 * An embedder gives the logger its own sinks ({@code new QueuedAuditLogger(SinkFactory)}), with state of their
 * own rather than found by class name: records reach them, the same factory joins the running pipeline, and
 * another factory replaces it.
 */
class GivenSinkTest {
  @RegisterExtension
  final LoggerFixture audit = new LoggerFixture();

  /** Keeps the records written to it, one string per record. */
  static final class MemorySink implements AuditSink {
    final List<String> records = new CopyOnWriteArrayList<>();
    final SinkContext context;

    MemorySink(SinkContext context) {
      this.context = context;
    }

    @Override
    public void write(ByteBuffer chunk) {
      for (String r : StandardCharsets.UTF_8.decode(chunk).toString().split("\n")) {
        records.add(r);
      }
    }

    @Override
    public void force() {
    }

    @Override
    public void close() {
    }
  }

  /** Opens a {@link MemorySink} for each pipeline and adds it to {@code opened}. */
  private static SinkFactory memorySinks(List<MemorySink> opened) {
    return SinkFactory.of("memory", context -> {
      MemorySink s = new MemorySink(context);
      opened.add(s);
      return s;
    });
  }

  private Configuration conf() {
    Configuration c = audit.conf();
    c.set("nnaudit.memory.label", "first"); // a key of the given sink's own
    return c;
  }

  @Test
  void recordsReachTheGivenSink() throws Exception {
    List<MemorySink> opened = new CopyOnWriteArrayList<>();
    SinkFactory sinks = memorySinks(opened);
    QueuedAuditLogger l = audit.start(sinks, conf());
    logCreate(l, "/given/a");
    logCreate(l, "/given/b");
    assertTrue(l.pipeline().awaitWritten(10_000));
    assertEquals(1, opened.size());
    MemorySink sink = opened.get(0);
    assertEquals(2, sink.records.size(), sink.records.toString());
    assertTrue(sink.records.get(1).contains("\tsrc=/given/b\t"), sink.records.toString());
    assertEquals("first", sink.context.conf().get("nnaudit.memory.label"), "the sink reads its own keys");
    assertFalse(audit.file().exists(), "nnaudit.sink was not used");
  }

  @Test
  void theSameFactoryJoinsAndAnotherReplaces() throws Exception {
    List<MemorySink> opened = new CopyOnWriteArrayList<>();
    SinkFactory sinks = memorySinks(opened);
    QueuedAuditLogger first = audit.start(sinks, conf());
    QueuedAuditLogger joined = audit.start(sinks, conf());
    assertSame(first.pipeline(), joined.pipeline(), "same settings, same factory: one pipeline");

    MemorySink other = new MemorySink(null);
    QueuedAuditLogger replaced = audit.start(SinkFactory.of("memory", context -> other), conf());
    assertSame(replaced.pipeline(), first.pipeline(), "loggers follow the slot to the replacement");
    logCreate(first, "/given/after");
    assertTrue(first.pipeline().awaitWritten(10_000));
    assertEquals(1, other.records.size(), other.records.toString());
    assertEquals(1, opened.size(), "the first factory opened one sink only");
  }
}
