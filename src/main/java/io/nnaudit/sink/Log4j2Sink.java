package io.nnaudit.sink;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import io.nnaudit.Durability;
import io.nnaudit.NnauditConfigKeys;
import io.nnaudit.NnauditSettings;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * {@code nnaudit.sink=log4j2}: hands each record, as one message at INFO, to the log4j2 logger named by
 * {@code nnaudit.log4j2.logger}, so that a log4j2 configuration can send audit records to any log4j2 appender
 * (RollingFile with gzip and retention, Syslog, Socket, ...), while the queue, the overflow policy and the
 * metrics stay nnaudit's. The record keeps its own prefix (the time of the call), so a layout of
 * {@code %m%n} gives the stock hdfs-audit.log line.
 *
 * <p>log4j2 is not on a stock NameNode's classpath: log4j-api and log4j-core must be added (README). Without
 * log4j-core the API would quietly fall back to a logger that writes nowhere useful, so this sink refuses to
 * start instead. fsync cannot be asked of a log4j2 appender, so durability modes other than none are refused.
 */
public final class Log4j2Sink implements AuditSink {
  private final Logger logger;

  public Log4j2Sink(NnauditSettings settings) {
    try {
      Class.forName("org.apache.logging.log4j.core.LoggerContext", false, Log4j2Sink.class.getClassLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      throw new IllegalArgumentException("nnaudit: invalid value for " + NnauditConfigKeys.SINK_KEY
          + ": 'log4j2'. Allowed: log4j2 only when log4j-api and log4j-core are on the NameNode's classpath "
          + "(copy both jars to share/hadoop/hdfs/lib or add them to HADOOP_CLASSPATH); log4j-core is missing.", e);
    }
    if (settings.durability() != Durability.NONE) {
      throw new IllegalArgumentException("nnaudit: invalid value for " + NnauditConfigKeys.DURABILITY_KEY + ": '"
          + settings.durability().name().toLowerCase(java.util.Locale.ROOT) + "'. Allowed: none with "
          + NnauditConfigKeys.SINK_KEY + "=log4j2, which cannot fsync; use the file sink for durability.");
    }
    this.logger = LogManager.getLogger(settings.log4j2Logger());
  }

  @Override
  public void write(ByteBuffer chunk) {
    String text = StandardCharsets.UTF_8.decode(chunk).toString();
    int start = 0;
    for (int nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
      logger.info(text.substring(start, nl));
      start = nl + 1;
    }
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
