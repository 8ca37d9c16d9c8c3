package io.nnaudit.sink;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.function.Predicate;

import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/**
 * A real log4j2 appender that keeps the messages it is given and throws, as a broken disk or socket would,
 * for the messages a test picks: once each ({@link #failOnce}) or every time ({@link #failAlways}); it can
 * also hold the writer on a message until the test lets it go ({@link #holdOn}). It throws an
 * {@link IllegalStateException}, as a broken destination would; with {@code ignoreExceptions=false} log4j2's
 * default error handler passes it on as an {@code AppenderLoggingException}.
 */
final class FlakyAppender extends AbstractAppender {
  private final List<String> messages = new ArrayList<>();
  private final Set<String> failedOnce = new HashSet<>();
  private volatile Predicate<String> failOnce = m -> false;
  private volatile Predicate<String> failAlways = m -> false;
  private volatile Predicate<String> hold = m -> false;
  private final CountDownLatch release = new CountDownLatch(1);
  private int failures;

  FlakyAppender(String name, boolean ignoreExceptions) {
    super(name, null, null, ignoreExceptions, Property.EMPTY_ARRAY);
  }

  /** Adds a started appender to the logger {@code loggerName} of {@code ctx}'s configuration. */
  public static FlakyAppender attach(LoggerContext ctx, String loggerName, String name, boolean ignoreExceptions) {
    FlakyAppender a = new FlakyAppender(name, ignoreExceptions);
    a.start();
    Configuration config = ctx.getConfiguration();
    config.addAppender(a);
    LoggerConfig lc = config.getLoggerConfig(loggerName);
    if (!lc.getName().equals(loggerName)) {
      throw new IllegalStateException("the test configuration has no logger " + loggerName);
    }
    lc.addAppender(a, null, null);
    ctx.updateLoggers();
    return a;
  }

  public FlakyAppender failOnce(Predicate<String> p) {
    failOnce = p;
    return this;
  }

  public FlakyAppender failAlways(Predicate<String> p) {
    failAlways = p;
    return this;
  }

  /** Makes the first message that matches {@code p} wait in the appender until {@link #release}. */
  public FlakyAppender holdOn(Predicate<String> p) {
    hold = p;
    return this;
  }

  public void release() {
    release.countDown();
  }

  @Override
  public void append(LogEvent event) {
    String m = event.getMessage().getFormattedMessage();
    if (hold.test(m)) {
      hold = x -> false;
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    synchronized (this) {
      if (failAlways.test(m) || (failOnce.test(m) && failedOnce.add(m))) {
        failures++;
        throw new IllegalStateException("test appender " + getName() + " refuses: " + m);
      }
      messages.add(m);
    }
  }

  public synchronized List<String> messages() {
    return new ArrayList<>(messages);
  }

  public synchronized int failures() {
    return failures;
  }
}
