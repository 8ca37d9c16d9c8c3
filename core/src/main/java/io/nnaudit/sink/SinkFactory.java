package io.nnaudit.sink;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.util.Objects;
import java.util.function.Function;

import io.nnaudit.config.ConfigError;
import io.nnaudit.config.NnauditConfigKeys;

/**
 * Which sink the pipeline writes to, and how to open one. {@code nnaudit.sink} names it: {@code file} (the
 * rotating audit file, {@code io.nnaudit.sink.file.RollingFileSink}), {@code log4j2} ({@link Log4j2Sink}), or
 * the name of a class implementing {@link AuditSink} with a public constructor taking a {@link SinkContext}.
 *
 * <p>{@link #forSetting} checks that value when the settings are read: the class is loaded, must be a sink and
 * must have that constructor, and {@code log4j2} needs log4j-api and log4j-core on the classpath. A bad value
 * throws {@link IllegalArgumentException} naming the key, the value and what is allowed, so the NameNode fails
 * at start-up, before any pipeline changes. {@link #open} then constructs a sink; a constructor's own
 * {@link IllegalArgumentException} (naming its key) is passed on as it is.
 *
 * <p>Embedders that build the logger themselves, and tests, may open sinks with a function of their own
 * ({@link #of}) instead of a class named in configuration.
 *
 * <p>Two factories are equal when they open sinks of the same class, or, for factories made of a function,
 * when they hold the same function: the sink factory is part of the settings that decide whether a
 * re-initialize keeps the running pipeline.
 */
public final class SinkFactory {
  /** {@code nnaudit.sink=file}. */
  public static final String FILE = "file";
  /** {@code nnaudit.sink=log4j2}. */
  public static final String LOG4J2 = "log4j2";
  /** Named, not referenced, so that nothing of log4j2 is loaded before its jars are found. */
  /** Named, not linked: the file sink's package depends on this one, so this one must not depend on it. */
  private static final String FILE_SINK_CLASS = "io.nnaudit.sink.file.RollingFileSink";
  private static final String LOG4J2_SINK_CLASS = "io.nnaudit.sink.Log4j2Sink";
  private static final String ALLOWED = FILE + ", " + LOG4J2 + ", or the name of a class implementing "
      + AuditSink.class.getName() + " with a public constructor taking " + SinkContext.class.getName();

  private final String name;
  /** The sink class, or the function that opens sinks: what makes two factories equal. */
  private final Object identity;
  private final Function<SinkContext, ? extends AuditSink> opener;

  private SinkFactory(String name, Object identity, Function<SinkContext, ? extends AuditSink> opener) {
    this.name = name;
    this.identity = identity;
    this.opener = opener;
  }

  /**
   * The factory for a value of {@code nnaudit.sink} (trimmed): a short name or a class name. Loads and checks
   * the class; throws {@link IllegalArgumentException} naming the key, the value and what is allowed.
   */
  public static SinkFactory forSetting(String value) {
    String className = className(value);
    if (LOG4J2_SINK_CLASS.equals(className)) {
      Log4j2Jars.require(value);
    }
    Class<?> cls;
    try {
      cls = Class.forName(className, true, SinkFactory.class.getClassLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      throw unavailable(value, className, e);
    }
    if (!AuditSink.class.isAssignableFrom(cls)) {
      throw ConfigError.invalid(NnauditConfigKeys.SINK_KEY, value, ALLOWED);
    }
    Constructor<? extends AuditSink> constructor;
    try {
      constructor = cls.asSubclass(AuditSink.class).getConstructor(SinkContext.class);
    } catch (NoSuchMethodException | LinkageError e) {
      throw unavailable(value, className, e);
    }
    return new SinkFactory(className, cls, context -> construct(constructor, value, className, context));
  }

  /**
   * A factory whose sinks {@code opener} makes, for embedders and tests; {@code name} says what they are in
   * the log. Equal only to itself and to factories of the same function.
   */
  public static SinkFactory of(String name, Function<SinkContext, ? extends AuditSink> opener) {
    return new SinkFactory(name, Objects.requireNonNull(opener, "opener"), opener);
  }

  /**
   * Opens a sink: its destination is ready for writes when this returns. Throws
   * {@link IllegalArgumentException} naming the key and the value when the destination cannot be opened.
   */
  public AuditSink open(SinkContext context) {
    return opener.apply(context);
  }

  private static String className(String value) {
    if (FILE.equalsIgnoreCase(value)) {
      return FILE_SINK_CLASS;
    }
    if (LOG4J2.equalsIgnoreCase(value)) {
      return LOG4J2_SINK_CLASS;
    }
    return value;
  }

  private static AuditSink construct(Constructor<? extends AuditSink> constructor, String value, String className,
      SinkContext context) {
    try {
      return constructor.newInstance(context);
    } catch (InvocationTargetException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IllegalArgumentException) {
        throw (IllegalArgumentException) cause; // the sink's own message names its key
      }
      throw ConfigError.invalid(NnauditConfigKeys.SINK_KEY, value, ALLOWED + "; its constructor failed: " + cause,
          cause);
    } catch (ReflectiveOperationException | LinkageError e) {
      throw unavailable(value, className, e);
    }
  }

  private static IllegalArgumentException unavailable(String value, String className, Throwable e) {
    if (LOG4J2_SINK_CLASS.equals(className)) {
      return Log4j2Jars.missing(value, e);
    }
    return ConfigError.invalid(NnauditConfigKeys.SINK_KEY, value, ALLOWED, e);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SinkFactory && identity.equals(((SinkFactory) o).identity);
  }

  @Override
  public int hashCode() {
    return identity.hashCode();
  }

  /** The sink class, or the name given with the function. */
  @Override
  public String toString() {
    return name;
  }
}
