package io.nnaudit.sink;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import io.nnaudit.config.ConfigError;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.message.Message;
import org.apache.logging.log4j.message.SimpleMessage;
import org.apache.logging.log4j.spi.ExtendedLogger;
import io.nnaudit.config.NnauditConfigKeys;

/**
 * {@code nnaudit.sink=log4j2}: hands each record, as one message at INFO, to the log4j2 logger named by
 * {@code nnaudit.log4j2.logger}, so that a log4j2 configuration can send audit records to any log4j2 appender
 * (RollingFile with gzip and retention, Syslog, Socket, ...), while the queue, the queue-full policy and the
 * metrics stay nnaudit's. The record keeps its own prefix (the time of the call), so a layout of
 * {@code %m%n} gives the stock hdfs-audit.log line.
 *
 * <p>log4j2 is not on a stock NameNode's classpath: log4j-api and log4j-core must be added (README). Without
 * log4j-core the API would quietly fall back to a logger that writes nowhere useful, so this sink refuses to
 * start instead. fsync cannot be asked of a log4j2 appender, so durability modes other than none are refused.
 *
 * <p>Design note: exact delivery. A message handed to log4j2 cannot be taken back, so a chunk is not all or
 * nothing here. Records go to log4j2 one at a time; when one fails, the records before it stay delivered, the
 * chunk's position is left at the failed record, the sink remembers how far it got ({@link ChunkProgress}),
 * and the writer's retry of the chunk starts at the failed record: no record is delivered twice and none is
 * counted as written unless every record of its chunk was delivered. A failure can only be seen if log4j2
 * passes it on. The route is checked at start-up so that no appender hides its failures
 * ({@link Log4j2Route}), and the sink calls {@link ExtendedLogger#logMessage} itself, after its own level
 * check, because {@code Logger.info} lets only a {@code LoggingException} out (log4j2's default error handler
 * makes one of an appender's failure; a replaced handler need not). Not thread-safe: the pipeline calls it
 * from one writing thread at a time.
 */
public final class Log4j2Sink implements AuditSink {
  private static final String FQCN = Log4j2Sink.class.getName();
  private final String name;
  private final ExtendedLogger logger;
  private final Log4j2Route route;
  private final ChunkProgress progress = new ChunkProgress();

  /**
   * Opens the logger {@code nnaudit.log4j2.logger}; refuses (naming the key) a classpath without log4j-core, a
   * durability other than none, and a route that would lose records unseen.
   */
  public Log4j2Sink(SinkContext context) {
    Log4j2Jars.require(SinkFactory.LOG4J2);
    if (context.durable()) {
      throw ConfigError.invalid(NnauditConfigKeys.DURABILITY_KEY, context.durability(), "none with "
          + NnauditConfigKeys.SINK_KEY + "=" + SinkFactory.LOG4J2 + ", which cannot fsync; use the file sink for "
          + "durability");
    }
    this.name = context.log4j2Logger();
    this.logger = LogManager.getContext(Log4j2Sink.class.getClassLoader(), false).getLogger(name);
    this.route = Log4j2Route.check(name, logger);
  }

  /**
   * Delivers the records of {@code chunk} from its position, or, when this is the writer's retry of a chunk
   * that failed part-way, from the first record not delivered. On failure, throws with the chunk's position
   * at the record that failed; the records before it are delivered and will not be delivered again.
   */
  @Override
  public void write(ByteBuffer chunk) throws IOException {
    route.recheck();
    int end = chunk.limit();
    byte[] bytes;
    int base;
    if (chunk.hasArray()) {
      bytes = chunk.array();
      base = chunk.arrayOffset();
    } else {
      ByteBuffer all = chunk.duplicate();
      all.position(0);
      bytes = new byte[end];
      all.get(bytes);
      base = 0;
    }
    int at = progress.begin(chunk);
    try {
      while (at < end) {
        int nl = at;
        while (nl < end && bytes[base + nl] != '\n') {
          nl++;
        }
        deliver(new String(bytes, base + at, nl - at, StandardCharsets.UTF_8));
        at = Math.min(nl + 1, end);
      }
    } catch (Throwable t) {
      progress.stoppedAt(at);
      chunk.position(at);
      throw new IOException("log4j2 logger '" + name + "' failed to deliver an audit record; the records before "
          + "it in this batch were delivered and will not be delivered again", t);
    }
    progress.finished();
    chunk.position(end);
  }

  /**
   * Hands one record to log4j2. A logger no longer enabled at INFO (log4j2's own shutdown hook stopped its
   * context, or a reconfiguration turned it off) would drop the record silently: that is a failure, so that
   * the record is retried under fail-closed, or counted under fail-open, and never acknowledged as written.
   */
  private void deliver(String record) {
    Message m = new SimpleMessage(record);
    if (!logger.isEnabled(Level.INFO, null, m, null)) {
      throw new IllegalStateException("the log4j2 logger is not enabled at INFO (log4j2 stopped or reconfigured)");
    }
    logger.logMessage(FQCN, Level.INFO, null, m, null);
  }

  @Override
  public void force() {
    // durability=none only: see the constructor
  }

  @Override
  public void close() {
    // the log4j2 configuration owns the appenders
  }
}
