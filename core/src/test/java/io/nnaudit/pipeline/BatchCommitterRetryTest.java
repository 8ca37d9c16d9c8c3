package io.nnaudit.pipeline;

import static io.nnaudit.AuditTestSupport.conf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.settings.NnauditSettings;
import io.nnaudit.sink.AuditSink;
import io.nnaudit.sink.RecordEnds;
import io.nnaudit.throttle.RateLimitedLog;

/**
 * A chunk the sink refused is written again from where it began, not from the start of its buffer: a chunk that
 * starts past position 0 of its buffer must not take the bytes before it into the file on the retry.
 */
class BatchCommitterRetryTest {
  @TempDir
  Path dir;

  /** Refuses its first write after reading part of the chunk (as a short write(2) would), then takes them all. */
  private static final class RefusingOnceSink implements AuditSink {
    final ByteArrayOutputStream written = new ByteArrayOutputStream();
    final List<Integer> startsSeen = new ArrayList<>();

    @Override
    public void write(ByteBuffer chunk) throws IOException {
      startsSeen.add(chunk.position());
      if (startsSeen.size() == 1) {
        chunk.position(chunk.position() + 3);
        throw new IOException("injected: refused after 3 bytes");
      }
      byte[] b = new byte[chunk.remaining()];
      chunk.get(b);
      written.write(b, 0, b.length);
    }

    @Override
    public boolean undoesFailedWrites() {
      return true;
    }

    @Override
    public void force() {
    }

    @Override
    public void close() {
    }
  }

  @Test
  void aRefusedChunkIsRetriedFromItsOwnStart() throws Exception {
    Configuration c = conf(dir.resolve("audit.log").toFile());
    c.set(NnauditConfigKeys.FAILURE_RETRY_INTERVAL_MS_KEY, "10");
    NnauditSettings settings = NnauditSettings.fromConf(c);
    AuditMetrics metrics = new AuditMetrics(new int[0]);
    DropTracker drops = new DropTracker(metrics, 1000, LoggerFactory.getLogger(BatchCommitterRetryTest.class), "t");
    RefusingOnceSink sink = new RefusingOnceSink();
    BatchCommitter committer = new BatchCommitter(settings, sink, drops, new Lifecycle(), metrics,
        new RateLimitedLog(LoggerFactory.getLogger(BatchCommitterRetryTest.class), 60_000), null);

    String record = "allowed=true\tcmd=create\tsrc=/a\n";
    ByteBuffer buf = ByteBuffer.wrap(("NOT-THIS-CHUNK:" + record).getBytes(StandardCharsets.UTF_8));
    buf.position("NOT-THIS-CHUNK:".length());
    RecordEnds ends = new RecordEnds();
    ends.add(record.length());

    assertTrue(committer.commit(buf, ends, Collections.emptyList(), CommitMode.WRITER));
    assertEquals(2, sink.startsSeen.size(), "refused once, then written");
    assertEquals(sink.startsSeen.get(0), sink.startsSeen.get(1), "the retry starts where the chunk began");
    assertEquals(record, new String(sink.written.toByteArray(), StandardCharsets.UTF_8));
  }
}
