package io.nnaudit;

import java.net.InetAddress;
import java.util.Objects;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.security.token.delegation.DelegationTokenIdentifier;
import org.apache.hadoop.hdfs.security.token.delegation.DelegationTokenSecretManager;
import org.apache.hadoop.hdfs.server.namenode.HdfsAuditLogger;
import org.apache.hadoop.ipc.CallerContext;
import org.apache.hadoop.ipc.Server;
import org.apache.hadoop.security.UserGroupInformation.AuthenticationMethod;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.token.TokenIdentifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.nnaudit.ack.AckTicket;
import io.nnaudit.ack.AckTickets;
import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.event.AuditEvent;
import io.nnaudit.format.FormatOptions;
import io.nnaudit.pipeline.AuditPipeline;
import io.nnaudit.pipeline.AuditStats;
import io.nnaudit.pipeline.Offer;
import io.nnaudit.pipeline.PipelineRegistry;
import io.nnaudit.settings.AckPolicy;
import io.nnaudit.settings.NnauditSettings;
import io.nnaudit.sink.SinkFactory;
import io.nnaudit.throttle.RateLimitedLog;

/**
 * The NameNode audit logger: set {@code dfs.namenode.audit.loggers=io.nnaudit.QueuedAuditLogger} (alone, to
 * replace hdfs-audit.log, or after {@code default} to keep both).
 *
 * <p>On the RPC handler thread, {@code logAuditEvent} captures the event's fields and the time of the call into
 * an immutable {@link AuditEvent} and offers it to the bounded queue of its {@link AuditPipeline}; a background
 * writer formats and writes it. Records are the stock {@code hdfs-audit.log} lines.
 *
 * <p>The call never throws. Inside an RPC it does not wait for its own record: with
 * {@code nnaudit.ack.policy=write} (the default) or durability=sync the RPC's response is postponed until the
 * record is written (fsynced), or answered with an error if it cannot be (see {@link AckTicket}). Every wait
 * the call can make, with its bound ({@link AuditPipeline}'s note has them in full); an interrupt ends none of
 * them, and the flag is restored:
 * <ul>
 * <li>under BLOCK, for room in a full queue: at most {@code nnaudit.handler.max.wait.ms}, after which its
 * operation is answered with an error;</li>
 * <li>outside an RPC (fsck), for its record: at most {@code nnaudit.handler.max.wait.ms};</li>
 * <li>under {@code nnaudit.ack.policy=journal}, for the journal's lock, held by each handler only to copy one
 * record into the mapped ring and queue its event ({@link io.nnaudit.journal.RecordJournal}); a copy that faults
 * on a page the kernel is writing back waits for that page. A record the journal cannot take waits for its write
 * as under ack policy write;</li>
 * <li>after the JVM shutdown hook began, for the hand-over of the file and then for the lock, both to the
 * earlier of {@code nnaudit.handler.max.wait.ms} and {@code nnaudit.shutdown.timeout.ms} + 1 s; under
 * fail-closed a refusing disk is retried to the same deadline, after which its operation is answered with an
 * error;</li>
 * <li>while it writes, for what no setting bounds. Under ack policy write with durability none, BLOCK and the
 * file sink, a handler that finds no one writing writes the queue itself ({@link AuditPipeline#lead}: at most
 * two batches, each write tried once, a refusing disk's records left to the writer thread); after the hand-over
 * each handler writes its own record. Such a write waits for the write(2), and after the hand-over for an
 * fsync, as long as the disk holds them; for a rotation of the file (renames, deletes, and when it is shipped,
 * reading each unshipped rotated file it deletes, up to a whole file); and with sealing for the sealing
 * thread: each request is answered or failed within 30 s, at most six in one write call (none in the common
 * case) and one more for a record written after the hand-over, and room in its queue of bytes to hash, which
 * has no bound while a hung disk holds the digest file's write.</li>
 * </ul>
 * Once the last shutdown hook has taken the file back to close it, just before the JVM halts, a call writes
 * nothing and its operation is answered with an error.
 */
public class QueuedAuditLogger extends HdfsAuditLogger {
  private static final Logger LOG = LoggerFactory.getLogger(QueuedAuditLogger.class);
  /** The stock audit logger; {@code dfs.namenode.audit.log.debug.cmdlist} commands are kept at its DEBUG. */
  private static final Logger STOCK_AUDIT_LOG =
      LoggerFactory.getLogger("org.apache.hadoop.hdfs.server.namenode.FSNamesystem.audit");
  private static final long CAPTURE_FAILURE_LOG_INTERVAL_MS = 10_000;
  private static final RateLimitedLog CAPTURE_FAILURES = new RateLimitedLog(LOG, CAPTURE_FAILURE_LOG_INTERVAL_MS);

  /** Opens the sinks, when given by an embedder; null to open the one {@code nnaudit.sink} names. */
  private final SinkFactory sinks;
  /** Set by initialize (the NameNode's start-up thread); read by handlers on every call. */
  private volatile PipelineRegistry.Slot slot;

  /** The public no-arg constructor FSNamesystem calls: records go to the sink {@code nnaudit.sink} names. */
  public QueuedAuditLogger() {
    this.sinks = null;
  }

  /**
   * For embedders that create the logger themselves (and tests): records go to the sinks {@code sinks} opens,
   * for example {@code SinkFactory.of("mine", context -> new MySink(context))}, and {@code nnaudit.sink} is not
   * read. Loggers of one audit file with the same settings and the same factory share a pipeline; another
   * factory replaces it, as changed settings do.
   */
  public QueuedAuditLogger(SinkFactory sinks) {
    this.sinks = Objects.requireNonNull(sinks, "sinks");
  }

  /**
   * Reads and validates the settings and joins (or starts) the pipeline for the audit file. A bad setting
   * throws {@link IllegalArgumentException} naming the key, the value and what is allowed, which stops the
   * NameNode from starting.
   */
  @Override
  public void initialize(Configuration conf) {
    slot = PipelineRegistry.acquire(sinks == null ? NnauditSettings.fromConf(conf)
        : NnauditSettings.fromConf(conf, sinks));
  }

  @Override
  public void logAuditEvent(boolean succeeded, String userName, InetAddress addr, String cmd, String src,
      String dst, FileStatus stat, UserGroupInformation ugi, DelegationTokenSecretManager dtSecretManager) {
    logAuditEvent(succeeded, userName, addr, cmd, src, dst, stat, null, ugi, dtSecretManager);
  }

  @Override
  public void logAuditEvent(boolean succeeded, String userName, InetAddress addr, String cmd, String src,
      String dst, FileStatus stat, CallerContext callerContext, UserGroupInformation ugi,
      DelegationTokenSecretManager dtSecretManager) {
    long now = System.currentTimeMillis();
    PipelineRegistry.Slot s = slot;
    if (s == null) {
      logCaptureFailure("logAuditEvent was called before initialize", null);
      return;
    }
    AuditPipeline pipeline = s.current();
    AuditEvent event;
    AckTicket ticket = null;
    try {
      NnauditSettings settings = pipeline.settings();
      if (!settings.debugCmds().isEmpty() && settings.debugCmds().contains(cmd)
          && !STOCK_AUDIT_LOG.isDebugEnabled()) {
        return;
      }
      boolean hasStat = stat != null;
      String owner = hasStat ? stat.getOwner() : null;
      String group = hasStat ? stat.getGroup() : null;
      FsPermission perm = hasStat ? stat.getPermission() : null;
      FormatOptions format = settings.formatOptions();
      String trackingId = format.trackingIdEnabled() ? trackingId(ugi, dtSecretManager) : null;
      CallerContext ctx = format.callerContextEnabled() && callerContext != null
          && callerContext.isContextValid() ? callerContext : null;
      ticket = settings.responsesWaitForWriter() ? AckTickets.forCurrentThread() : null;
      event = new AuditEvent(now, succeeded, userName, addr, cmd, src, dst, hasStat, owner, group, perm,
          trackingId, Server.getProtocol(), ctx, ticket);
    } catch (Throwable t) {
      pipeline.countCaptureFailure();
      logCaptureFailure("could not capture an audit event (cmd=" + cmd + "); it is skipped", t);
      abortResponse(ticket, "the audit event could not be captured"); // no record: no success either
      return;
    }
    Offer result = null;
    try {
      if (pipeline.settings().ackPolicy() == AckPolicy.JOURNAL && ticket == null) {
        result = pipeline.offerJournaled(event); // ACCEPTED: its record is in the journal; acknowledged now
        if (result != Offer.ACCEPTED) {
          // Not journaled: from here on it waits for its write, as under ack policy write.
          event = event.withTicket(AckTickets.forCurrentThread());
          ticket = event.ticket;
          if (result == null) {
            pipeline.countJournalWait();
            result = pipeline.offer(event);
          }
        }
      } else {
        result = pipeline.offer(event);
      }
      if (result == Offer.CLOSED) {
        // A re-initialize may have swapped the pipeline under us: follow the slot; the replacement is
        // published before the old pipeline closes, so one step is enough.
        AuditPipeline current = s.current();
        if (current != pipeline) {
          pipeline = current;
          result = current.offer(event);
        }
        if (result == Offer.CLOSED) {
          result = pipeline.afterClose(event); // the shutdown hook ran: write it here, or refuse it
        }
      }
      settle(pipeline, event, result);
    } catch (Throwable t) {
      logCaptureFailure("could not hand an audit event to its pipeline (cmd=" + cmd + ")", t);
      if (result == null) {
        pipeline.countCaptureFailure(); // it never got a fate of its own: counted as not captured
      }
      if (result != Offer.ACCEPTED) {
        // Not known to be queued: answer with an error. A ticket already settled ignores this.
        abortResponse(ticket, "the audit event could not be handed to its pipeline");
      }
    }
  }

  /** Completes the acknowledgement of an event by what became of it. Never throws. */
  private static void settle(AuditPipeline pipeline, AuditEvent event, Offer result) {
    AckTicket ticket = event.ticket;
    switch (result) {
      case ACCEPTED:
        pipeline.lead(); // write what is queued here if no one else is writing (ack policy write only)
        if (ticket != null && ticket.mustWait()
            && ticket.await(pipeline.settings().handlerMaxWaitMs()) == AckTicket.PENDING) {
          logCaptureFailure("a caller outside an RPC waited " + pipeline.settings().handlerMaxWaitMs() + " ms ("
              + NnauditConfigKeys.HANDLER_MAX_WAIT_MS_KEY + ") for its audit record and went on without it", null);
        }
        break;
      case DROPPED:
        if (ticket != null) {
          ticket.release(); // DROP: counted and reported; the operation is answered all the same
        }
        break;
      case REFUSED:
        abortResponse(ticket, "the audit record could not be queued or written");
        break;
      default: // WRITTEN: the direct write settled the ticket
        break;
    }
  }

  /**
   * An operation whose record will not exist is answered with an error: through its ticket, or, with
   * {@code nnaudit.ack.policy=queue} (no ticket), by postponing and at once aborting the RPC's response.
   */
  private static void abortResponse(AckTicket ticket, String why) {
    try {
      AckTicket t = ticket != null ? ticket : AckTickets.forCurrentThread();
      t.abort(why);
    } catch (Throwable e) {
      logCaptureFailure("could not abort the response of an unaudited operation", e);
    }
  }

  /** The stock logger's tracking id: that of the first delegation token of a token-authenticated caller. */
  private static String trackingId(UserGroupInformation ugi, DelegationTokenSecretManager dtSecretManager) {
    if (ugi == null || dtSecretManager == null || ugi.getAuthenticationMethod() != AuthenticationMethod.TOKEN) {
      return null;
    }
    for (TokenIdentifier tid : ugi.getTokenIdentifiers()) {
      if (tid instanceof DelegationTokenIdentifier) {
        return dtSecretManager.getTokenTrackingId((DelegationTokenIdentifier) tid);
      }
    }
    return null;
  }

  private static void logCaptureFailure(String what, Throwable t) {
    CAPTURE_FAILURES.error(what, t);
  }

  /** Counters of the pipeline this logger writes to. */
  public AuditStats stats() {
    return slot.current().stats();
  }

  /** The pipeline this logger writes to (for flushing and closing in tests and embedders). */
  public AuditPipeline pipeline() {
    return slot.current();
  }

  /** Closes every nnaudit pipeline in this JVM, writing what each had accepted; for embedders and tests. */
  public static void closeAll(long timeoutMs) {
    PipelineRegistry.closeAll(timeoutMs);
  }
}
