package io.nnaudit.sink;

import io.nnaudit.QueuedAuditLogger;
import org.apache.hadoop.conf.Configuration;
import io.nnaudit.config.NnauditConfigKeys;

/** Run without log4j2 on the classpath by {@link Log4j2AbsentTest}: prints what initialize says. */
public final class Log4j2AbsentMain {
  private Log4j2AbsentMain() {
  }

  public static void main(String[] args) {
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.FILE_PATH_KEY, args[0]);
    c.set(NnauditConfigKeys.SINK_KEY, "log4j2");
    try {
      new QueuedAuditLogger().initialize(c);
      System.out.println("RESULT started");
    } catch (IllegalArgumentException e) {
      System.out.println("RESULT " + e.getMessage());
    }
    System.exit(0);
  }
}
