package io.nnaudit;

import java.io.File;

import org.apache.hadoop.conf.Configuration;

import io.nnaudit.config.NnauditConfigKeys;

/**
 * Run in a separate JVM by {@code JournalKillTest}: nnaudit under {@code ack.policy=journal} whose file sink
 * holds every write (a {@link GatedFileSink} stalled before the first), so that the records it acknowledges are in
 * the journal and nowhere else. Logs {@code count} creates of {@code /j/N} from the main thread, which is outside
 * an RPC: each call returns once its record is journaled. Prints {@code LOGGED count} once every call has returned,
 * then waits to be killed. Arguments: auditFile count.
 */
public final class JournalWriterMain {
  private JournalWriterMain() {
  }

  public static void main(String[] args) throws Exception {
    int count = Integer.parseInt(args[1]);
    Configuration conf = conf(new File(args[0]));
    GatedFileSink gate = new GatedFileSink();
    gate.stall();
    gate.installIn(conf);
    QueuedAuditLogger logger = new QueuedAuditLogger();
    logger.initialize(conf);
    for (int i = 0; i < count; i++) {
      AuditTestSupport.logCreate(logger, "/j/" + i);
    }
    System.out.println("LOGGED " + count + " written=" + logger.stats().written);
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE);
  }

  /** The settings of the child, and of a start after it on the same file. */
  public static Configuration conf(File auditFile) {
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.FILE_PATH_KEY, auditFile.getPath());
    c.set(NnauditConfigKeys.ACK_POLICY_KEY, "journal");
    c.setInt(NnauditConfigKeys.QUEUE_CAPACITY_KEY, 100_000);
    return c;
  }
}
