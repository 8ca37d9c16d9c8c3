package io.nnaudit.sink;

import java.util.ArrayList;
import java.util.List;

import io.nnaudit.config.ConfigError;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.Appender;
import org.apache.logging.log4j.core.Logger;
import org.apache.logging.log4j.core.appender.AbstractOutputStreamAppender;
import org.apache.logging.log4j.core.appender.AsyncAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.slf4j.LoggerFactory;
import io.nnaudit.config.NnauditConfigKeys;

/**
 * Where log4j2 sends the audit logger's records, read from its live configuration, and whether a record that
 * an appender fails to write can be told from one it wrote. The only class of the sink that uses log4j-core;
 * it is loaded once {@link Log4j2Sink} has found log4j-core on the classpath.
 *
 * <p>Design note. A failing appender reaches the caller only when its {@code ignoreExceptions} is false;
 * with log4j2's default of true, log4j2 logs the failure to its status logger (a few times) and returns as if
 * the record had been written. Its {@code ErrorHandler} cannot be replaced once it is started. So a route
 * that would lose records unseen is refused at start-up:
 * <ul>
 * <li>an appender with {@code ignoreExceptions="true"}: a record it fails to write would count as written;</li>
 * <li>a logger not enabled at INFO, or one whose records reach no appender: every record would.</li>
 * </ul>
 * These make delivery inexact without hiding it, and are logged at WARN:
 * <ul>
 * <li>an asynchronous logger or appender: log4j2 writes a record later on its own thread, where a failure
 * cannot reach nnaudit, so a queued record counts as written;</li>
 * <li>more than one appender: log4j2 calls them in turn and stops at one that throws, so when the record is
 * retried, the appenders before the failing one receive it again;</li>
 * <li>an appender with {@code immediateFlush="false"}: records held in its buffer count as written, and a
 * failed flush is reported on the record that caused it, not on the records it held.</li>
 * </ul>
 * log4j2 can be reconfigured while the NameNode runs ({@code monitorInterval}). {@link #recheck} notices a new
 * configuration on the next write and logs at WARN what is wrong with it; it cannot refuse it.
 */
final class Log4j2Route {
  private static final org.slf4j.Logger LOG = LoggerFactory.getLogger(Log4j2Route.class);
  private static final String ASYNC_PACKAGE = "org.apache.logging.log4j.core.async.";

  private final String name;
  private final Logger logger;
  private Configuration checked;

  private Log4j2Route(String name, Logger logger) {
    this.name = name;
    this.logger = logger;
  }

  /**
   * Reads the route of {@code apiLogger} and refuses it ({@link IllegalArgumentException}, naming
   * {@code nnaudit.log4j2.logger}) if it would lose records unseen; logs at WARN what makes it inexact.
   */
  static Log4j2Route check(String name, org.apache.logging.log4j.Logger apiLogger) {
    if (!(apiLogger instanceof Logger)) {
      throw invalid(name, "a logger of log4j-core; log4j-api hands out " + apiLogger.getClass().getName()
          + ", so another log4j2 provider is in use and nnaudit cannot tell whether a record was written");
    }
    Log4j2Route route = new Log4j2Route(name, (Logger) apiLogger);
    route.checked = route.logger.getContext().getConfiguration();
    Findings f = route.read();
    if (!f.losses.isEmpty()) {
      throw invalid(name, "a log4j2 logger that reports every record it fails to write; with this log4j2 "
          + "configuration (" + route.checked.getName() + ") " + String.join("; ", f.losses));
    }
    route.warn(f);
    return route;
  }

  /** Checks the configuration again if log4j2 has been reconfigured since; cheap when it has not. */
  void recheck() {
    Configuration now = logger.getContext().getConfiguration();
    if (now == checked) {
      return;
    }
    checked = now;
    Findings f = read();
    for (String loss : f.losses) {
      LOG.warn("nnaudit: log4j2 was reconfigured ({}), and records of logger '{}' can now be lost unseen: {}. "
          + "They are handed to log4j2 as configured and counted as written.", now.getName(), name, loss);
    }
    warn(f);
  }

  private void warn(Findings f) {
    for (String caveat : f.inexact) {
      LOG.warn("nnaudit: delivery through log4j2 logger '{}' is not exact with this configuration ({}): {}.",
          name, checked.getName(), caveat);
    }
  }

  /** What the live configuration does with a record at INFO. */
  Findings read() {
    Findings f = new Findings();
    if (!logger.isEnabled(Level.INFO)) {
      f.losses.add("the logger is not enabled at INFO (its level is " + logger.getLevel()
          + "), so every record would be left out by log4j2 and counted as written");
    }
    if (logger.getClass().getName().startsWith(ASYNC_PACKAGE)) {
      f.inexact.add("the logger is asynchronous (" + logger.getClass().getSimpleName() + "): log4j2 writes a "
          + "record later on its own thread, where a failure cannot reach nnaudit, so a queued record counts as "
          + "written");
    }
    List<Appender> appenders = new ArrayList<>();
    for (LoggerConfig c = logger.get(); c != null; c = c.isAdditive() ? c.getParent() : null) {
      if (c.getClass().getName().startsWith(ASYNC_PACKAGE)) {
        f.inexact.add("logger config '" + c.getName() + "' is asynchronous (" + c.getClass().getSimpleName()
            + "): log4j2 writes a record later on its own thread, where a failure cannot reach nnaudit, so a "
            + "queued record counts as written");
      }
      appenders.addAll(c.getAppenders().values());
    }
    if (appenders.isEmpty()) {
      f.losses.add("no appender receives its records, so every record would go nowhere and be counted as "
          + "written");
    }
    List<String> names = new ArrayList<>();
    for (Appender a : appenders) {
      names.add("'" + a.getName() + "'");
      if (a.ignoreExceptions()) {
        f.losses.add("appender '" + a.getName() + "' has ignoreExceptions=\"true\" (log4j2's default), so a "
            + "record it fails to write would be counted as written: set ignoreExceptions=\"false\" on it");
      }
      if (a instanceof AsyncAppender) {
        f.inexact.add("appender '" + a.getName() + "' is asynchronous: it writes a record later on its own "
            + "thread, where a failure cannot reach nnaudit, so a queued record counts as written");
      } else if (a instanceof AbstractOutputStreamAppender
          && !((AbstractOutputStreamAppender<?>) a).getImmediateFlush()) {
        f.inexact.add("appender '" + a.getName() + "' has immediateFlush=\"false\": records held in its buffer "
            + "count as written, and a failed flush is reported on the record that caused it, not on those it "
            + "held");
      }
    }
    if (appenders.size() > 1) {
      f.inexact.add("its records reach " + appenders.size() + " appenders (" + String.join(", ", names)
          + "): log4j2 calls them in turn and stops at one that fails, so when nnaudit retries the record, the "
          + "appenders before the failing one receive it again");
    }
    return f;
  }

  private static IllegalArgumentException invalid(String name, String allowed) {
    return ConfigError.invalid(NnauditConfigKeys.LOG4J2_LOGGER_KEY, name, allowed);
  }

  /** What a configuration would lose unseen, and what it makes inexact. */
  static final class Findings {
    final List<String> losses = new ArrayList<>();
    final List<String> inexact = new ArrayList<>();
  }
}
