package io.nnaudit.sink;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** nnaudit.sink=log4j2 on a NameNode without log4j2 (a stock one): start-up fails with a clear message. */
class Log4j2AbsentTest {
  @TempDir
  Path dir;

  @Test
  void withoutLog4j2OnTheClasspathInitializeSaysWhatToAdd() throws Exception {
    String out = runWithout("log4j-core", "log4j-api");
    assertTrue(out.contains("RESULT nnaudit: invalid value for nnaudit.sink: 'log4j2'. Allowed: log4j2 only when "
        + "log4j-api and log4j-core are on the NameNode's classpath"), out);
  }

  @Test
  void withTheApiButNotTheCoreInitializeSaysTheCoreIsMissing() throws Exception {
    String out = runWithout("log4j-core");
    assertTrue(out.contains("RESULT nnaudit: invalid value for nnaudit.sink: 'log4j2'."), out);
    assertTrue(out.contains("log4j-core is missing"), out);
  }

  private String runWithout(String... jars) throws Exception {
    io.nnaudit.ChildJvmAccess child = new io.nnaudit.ChildJvmAccess(entry -> {
      for (String j : jars) {
        if (entry.contains("/" + j + "/") || entry.contains(j + "-2")) {
          return false;
        }
      }
      return true;
    }, Log4j2AbsentMain.class, dir.resolve("a.log").toString());
    return child.awaitExit(120_000);
  }
}
