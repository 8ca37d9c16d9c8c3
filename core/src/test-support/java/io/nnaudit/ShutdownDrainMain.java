package io.nnaudit;

import java.io.File;

import org.apache.hadoop.conf.Configuration;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.pipeline.AuditStats;

/**
 * Run in a separate JVM by {@link ShutdownHookTest}: logs events to a deliberately slow (or stalled) sink and
 * exits at once with System.exit, leaving the queue for the shutdown hook to drain.
 * Arguments: auditFile events writeDelayMs stall(true|false) shutdownTimeoutMs.
 */
public final class ShutdownDrainMain {
  private ShutdownDrainMain() {
  }

  public static void main(String[] args) throws Exception {
    File file = new File(args[0]);
    int events = Integer.parseInt(args[1]);
    Configuration c = AuditTestSupport.conf(file);
    c.setInt(NnauditConfigKeys.QUEUE_CAPACITY_KEY, events);
    c.setInt(NnauditConfigKeys.WRITER_BATCH_MAX_EVENTS_KEY, 100);
    c.set(NnauditConfigKeys.SHUTDOWN_TIMEOUT_MS_KEY, args[4]);
    GatedFileSink sink = new GatedFileSink();
    sink.delayWrites(Long.parseLong(args[2]));
    if (Boolean.parseBoolean(args[3])) {
      sink.stall();
    }
    QueuedAuditLogger logger = AuditTestSupport.logger(c, sink.factory());
    for (int i = 0; i < events; i++) {
      AuditTestSupport.logCreate(logger, "/exit/" + i);
    }
    AuditStats s = logger.stats();
    System.out.println("AT-EXIT accepted=" + s.accepted + " written=" + s.written);
    System.out.flush();
    System.exit(0);
  }
}
