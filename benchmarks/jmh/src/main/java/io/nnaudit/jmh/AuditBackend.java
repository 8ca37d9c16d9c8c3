package io.nnaudit.jmh;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import io.nnaudit.QueuedAuditLogger;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.server.namenode.HdfsAuditLogger;
import org.apache.hadoop.hdfs.server.namenode.StockAuditLoggers;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.config.Configurator;
import org.apache.logging.log4j.core.config.builder.api.ConfigurationBuilder;
import org.apache.logging.log4j.core.config.builder.api.ConfigurationBuilderFactory;
import org.apache.logging.log4j.core.config.builder.impl.BuiltConfiguration;

/**
 * One audit logger under test, set up in this JVM writing to one real file, and torn down so that everything it
 * accepted is on disk. Each variant is what its users would deploy: nnaudit through its Hadoop entry point;
 * Hadoop's own FSNamesystem logger with reload4j as in log4j.properties; and that same logger's line sent to
 * log4j2 instead of reload4j. Every variant writes the same line for the same event.
 */
final class AuditBackend {
  static final String AUDIT_LOGGER_NAME = "org.apache.hadoop.hdfs.server.namenode.FSNamesystem.audit";
  /** Hadoop's audit layout (log4j.properties, RFAAUDIT); log4j2's %d{DEFAULT} is reload4j's %d{ISO8601}. */
  static final String RELOAD4J_LAYOUT = "%d{ISO8601} %p %c{2}: %m%n";
  static final String LOG4J2_LAYOUT = "%d{DEFAULT} %p %c{2}: %m%n";
  /** nnaudit DROP's queue: the 1024 the README advises for DROP, so that bursts are absorbed. */
  static final int DROP_QUEUE_CAPACITY = 1024;

  interface Teardown {
    void run() throws Exception;
  }

  final String variant;
  final Path file;
  final HdfsAuditLogger logger;
  private final QueuedAuditLogger nnaudit;
  private final Teardown teardown;

  private AuditBackend(String variant, Path file, HdfsAuditLogger logger, Teardown teardown) {
    this.variant = variant;
    this.file = file;
    this.logger = logger;
    this.nnaudit = logger instanceof QueuedAuditLogger ? (QueuedAuditLogger) logger : null;
    this.teardown = teardown;
  }

  /** Events the logger refused and counted (nnaudit DROP); the others block instead, so they drop none. */
  long dropped() {
    return nnaudit == null ? 0 : nnaudit.stats().dropped;
  }

  /** Waits until every accepted event is in the file, then releases the file. */
  void close() throws Exception {
    teardown.run();
  }

  /**
   * @param handlers the NameNode's handler count, which sizes nnaudit BLOCK's queue as in a NameNode
   * @param seal the key to seal nnaudit's file with (nnaudit.seal.enabled), or null not to seal
   */
  static AuditBackend open(String variant, Path dir, int handlers, SealingKey seal) throws IOException {
    Path file = dir.resolve(variant + ".log");
    Configuration conf = new Configuration(false);
    conf.setBoolean("hadoop.caller.context.enabled", true);
    switch (variant) {
      case "nnaudit-block":
      case "nnaudit-drop": {
        conf.set("nnaudit.file.path", file.toString());
        conf.set("nnaudit.file.max.size", "1t"); // no rotation: the check counts one file
        conf.setInt("dfs.namenode.handler.count", handlers);
        // JMH threads are not RPC handlers: under the default ack policy each would wait for its record's
        // write, one caller at a time. The logger alone is measured as handlers see it once they queue.
        conf.set("nnaudit.ack.policy", "queue");
        if (variant.equals("nnaudit-drop")) {
          conf.set("nnaudit.queue.full.policy", "DROP");
          conf.setInt("nnaudit.queue.capacity", DROP_QUEUE_CAPACITY);
        }
        if (seal != null) {
          seal.enable(conf);
        }
        // For experiments: -Dnnaudit.jmh.conf=key=value,key=value overrides nnaudit settings.
        for (String kv : System.getProperty("nnaudit.jmh.conf", "").split(",")) {
          if (!kv.isEmpty()) {
            conf.set(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
          }
        }
        QueuedAuditLogger l = new QueuedAuditLogger();
        l.initialize(conf);
        return new AuditBackend(variant, file, l, () -> {
          if (!l.pipeline().close(TimeUnit.MINUTES.toMillis(5))) {
            throw new IllegalStateException("nnaudit did not drain within 5 minutes");
          }
        });
      }
      case "hadoop-sync":
      case "hadoop-async":
        requireUnsealed(variant, seal);
        return reload4j(variant, file, conf, variant.equals("hadoop-async"));
      case "log4j2-sync":
      case "log4j2-async":
        requireUnsealed(variant, seal);
        return log4j2(variant, file, conf, variant.equals("log4j2-async"));
      default:
        throw new IllegalArgumentException("unknown variant " + variant);
    }
  }

  private static void requireUnsealed(String variant, SealingKey seal) {
    if (seal != null) {
      throw new IllegalArgumentException("sealing is nnaudit's: " + variant + " cannot seal");
    }
  }

  /**
   * Hadoop as shipped: FSNamesystem's logger, SLF4J to reload4j, a RollingFileAppender (immediateFlush, as
   * shipped), optionally behind an AsyncAppender in blocking mode with Hadoop's default buffer of 128.
   */
  private static AuditBackend reload4j(String variant, Path file, Configuration conf, boolean async) {
    org.apache.log4j.Logger root = org.apache.log4j.Logger.getRootLogger();
    root.removeAllAppenders();
    root.setLevel(org.apache.log4j.Level.WARN);
    root.addAppender(new org.apache.log4j.ConsoleAppender(new org.apache.log4j.PatternLayout("%p %c: %m%n"),
        org.apache.log4j.ConsoleAppender.SYSTEM_ERR));
    org.apache.log4j.Logger audit = org.apache.log4j.Logger.getLogger(AUDIT_LOGGER_NAME);
    audit.removeAllAppenders();
    audit.setAdditivity(false);
    audit.setLevel(org.apache.log4j.Level.INFO);
    org.apache.log4j.RollingFileAppender rfa = new org.apache.log4j.RollingFileAppender();
    rfa.setName("RFAAUDIT");
    rfa.setFile(file.toString());
    rfa.setLayout(new org.apache.log4j.PatternLayout(RELOAD4J_LAYOUT));
    rfa.setMaxFileSize("1000GB"); // no rotation: the check counts one file
    rfa.setMaxBackupIndex(20);
    // For experiments: -Dnnaudit.jmh.stock.rotate=256MB,1 rotates the stock file (the check then counts only
    // the live file), as -Dnnaudit.jmh.conf=nnaudit.file.max.size=...,nnaudit.file.max.backups=... does for nnaudit.
    String rotate = System.getProperty("nnaudit.jmh.stock.rotate", "");
    if (!rotate.isEmpty()) {
      rfa.setMaxFileSize(rotate.substring(0, rotate.indexOf(',')));
      rfa.setMaxBackupIndex(Integer.parseInt(rotate.substring(rotate.indexOf(',') + 1)));
    }
    rfa.activateOptions();
    org.apache.log4j.Appender top = rfa;
    if (async) {
      org.apache.log4j.AsyncAppender a = new org.apache.log4j.AsyncAppender();
      a.setName("ASYNCAUDIT");
      a.setBlocking(true);
      a.setBufferSize(128);
      a.addAppender(rfa);
      a.activateOptions();
      top = a;
    }
    audit.addAppender(top);
    org.apache.log4j.Appender shown = top;
    return new AuditBackend(variant, file, StockAuditLoggers.hadoop(conf), () -> {
      audit.removeAppender(shown);
      shown.close(); // AsyncAppender.close() dispatches what it holds, then closes the file appender
      rfa.close();
    });
  }

  /**
   * The stock line sent to log4j2 (Ozone's choice): a File appender, synchronous with immediateFlush, or an
   * AsyncLogger (LMAX Disruptor, its default ring buffer and wait strategy, blocking when full) with the
   * appender flushing at the end of each batch, as log4j2 advises for async loggers.
   */
  private static AuditBackend log4j2(String variant, Path file, Configuration conf, boolean async) {
    // The stock logger formats only if SLF4J (reload4j) says INFO is on for the audit logger.
    org.apache.log4j.Logger.getRootLogger().removeAllAppenders();
    org.apache.log4j.Logger.getRootLogger().addAppender(new org.apache.log4j.varia.NullAppender());
    org.apache.log4j.Logger.getLogger(AUDIT_LOGGER_NAME).setLevel(org.apache.log4j.Level.INFO);

    ConfigurationBuilder<BuiltConfiguration> b = ConfigurationBuilderFactory.newConfigurationBuilder();
    b.setConfigurationName("nnaudit-jmh-" + variant);
    b.setStatusLevel(org.apache.logging.log4j.Level.WARN);
    b.add(b.newAppender("audit", "File")
        .addAttribute("fileName", file.toString())
        .addAttribute("append", true)
        .addAttribute("immediateFlush", !async)
        .add(b.newLayout("PatternLayout").addAttribute("pattern", LOG4J2_LAYOUT)));
    if (async) {
      b.add(b.newAsyncLogger(AUDIT_LOGGER_NAME, org.apache.logging.log4j.Level.INFO)
          .add(b.newAppenderRef("audit")).addAttribute("additivity", false));
    } else {
      b.add(b.newLogger(AUDIT_LOGGER_NAME, org.apache.logging.log4j.Level.INFO)
          .add(b.newAppenderRef("audit")).addAttribute("additivity", false));
    }
    b.add(b.newRootLogger(org.apache.logging.log4j.Level.WARN));
    LoggerContext ctx = Configurator.initialize(b.build());
    org.apache.logging.log4j.Logger l2 = ctx.getLogger(AUDIT_LOGGER_NAME);
    HdfsAuditLogger logger = StockAuditLoggers.hadoopFormatting(conf, l2::info);
    return new AuditBackend(variant, file, logger, () -> {
      if (!ctx.stop(5, TimeUnit.MINUTES)) {
        throw new IllegalStateException("log4j2 did not stop within 5 minutes");
      }
    });
  }
}
