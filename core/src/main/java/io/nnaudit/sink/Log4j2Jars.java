package io.nnaudit.sink;

import io.nnaudit.config.ConfigError;
import io.nnaudit.config.NnauditConfigKeys;

/**
 * Whether log4j-api and log4j-core are on the classpath, asked before anything of the log4j2 sink is loaded: a
 * stock NameNode has neither, and without log4j-core the API would quietly hand out a logger that writes
 * nowhere useful. Refusals name {@code nnaudit.sink} and say which jars to add.
 */
final class Log4j2Jars {
  private static final String ALLOWED = "log4j2 only when log4j-api and log4j-core are on the NameNode's classpath "
      + "(copy both jars to share/hadoop/hdfs/lib or add them to HADOOP_CLASSPATH)";

  private Log4j2Jars() {
  }

  /** Throws {@link IllegalArgumentException} unless both jars are there; {@code value} is nnaudit.sink's. */
  static void require(String value) {
    ClassLoader loader = Log4j2Jars.class.getClassLoader();
    try {
      Class.forName("org.apache.logging.log4j.LogManager", false, loader);
    } catch (ClassNotFoundException | LinkageError e) {
      throw missing(value, e);
    }
    try {
      Class.forName("org.apache.logging.log4j.core.LoggerContext", false, loader);
    } catch (ClassNotFoundException | LinkageError e) {
      throw ConfigError.invalid(NnauditConfigKeys.SINK_KEY, value, ALLOWED + "; log4j-core is missing", e);
    }
  }

  /** The refusal when loading the log4j2 sink failed with {@code e}. */
  static IllegalArgumentException missing(String value, Throwable e) {
    return ConfigError.invalid(NnauditConfigKeys.SINK_KEY, value, ALLOWED + "; they are missing: " + e, e);
  }
}
