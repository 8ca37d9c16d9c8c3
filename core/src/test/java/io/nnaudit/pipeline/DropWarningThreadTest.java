package io.nnaudit.pipeline;

import static io.nnaudit.AuditTestSupport.logCreate;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.log4j.AppenderSkeleton;
import org.apache.log4j.Logger;
import org.apache.log4j.spi.LoggingEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.nnaudit.AuditTestSupport;
import io.nnaudit.LoggerFixture;
import io.nnaudit.QueuedAuditLogger;
import io.nnaudit.config.NnauditConfigKeys;

/** Under DROP a handler never writes the drop WARN itself: the writer thread does, rate-limited. */
class DropWarningThreadTest {
  @RegisterExtension
  final LoggerFixture audit = new LoggerFixture();

  /** Records the thread of every "dropped" WARN of the pipeline's logger. */
  private static final class ThreadRecorder extends AppenderSkeleton {
    final List<String> threads = new CopyOnWriteArrayList<>();

    @Override
    protected void append(LoggingEvent e) {
      if (String.valueOf(e.getMessage()).contains("nnaudit: dropped")) {
        threads.add(e.getThreadName());
      }
    }

    @Override
    public void close() {
    }

    @Override
    public boolean requiresLayout() {
      return false;
    }
  }

  @Test
  void theDropWarningIsLoggedByTheWriterNotByTheHandler() throws Exception {
    ThreadRecorder recorder = new ThreadRecorder();
    Logger log = Logger.getLogger(AuditPipeline.class);
    log.addAppender(recorder);
    try {
      QueuedAuditLogger l = audit.start(c -> {
        c.setInt(NnauditConfigKeys.QUEUE_CAPACITY_KEY, 1);
        c.set(NnauditConfigKeys.QUEUE_FULL_POLICY_KEY, "DROP");
      });
      audit.stallWriter(l, "/stall");
      for (int i = 0; i < 20; i++) {
        logCreate(l, "/d" + i);
      }
      assertTrue(recorder.threads.isEmpty(), "no WARN from the handler: " + recorder.threads);
      audit.sink().resume();
      assertTrue(l.pipeline().awaitWritten(30_000));
      AuditTestSupport.awaitTrue("the writer's WARN", 10_000, () -> !recorder.threads.isEmpty());
      assertFalse(recorder.threads.stream().anyMatch(t -> !t.startsWith("nnaudit-writer[")), recorder.threads
          .toString());
    } finally {
      log.removeAppender(recorder);
    }
  }
}
