package io.nnaudit.sink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.FileInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;

import io.nnaudit.NnauditConfigKeys;
import io.nnaudit.QueuedAuditLogger;
import io.nnaudit.TestFiles;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.config.Configurator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** nnaudit.sink=log4j2 with a real log4j2 configuration: a RollingFile appender that gzips what it rolls. */
class Log4j2SinkTest {
  @TempDir
  Path dir;

  private static final String CONFIG = "<Configuration status=\"warn\">\n"
      + "  <Appenders>\n"
      + "    <RollingFile name=\"audit\" fileName=\"%s/audit.log\" filePattern=\"%s/audit-%%i.log.gz\">\n"
      + "      <PatternLayout pattern=\"%%m%%n\" charset=\"UTF-8\"/>\n"
      + "      <Policies><SizeBasedTriggeringPolicy size=\"20 KB\"/></Policies>\n"
      + "      <DefaultRolloverStrategy max=\"1000\"/>\n"
      + "    </RollingFile>\n"
      + "  </Appenders>\n"
      + "  <Loggers>\n"
      + "    <Logger name=\"nnaudit.audit\" level=\"info\" additivity=\"false\"><AppenderRef ref=\"audit\"/></Logger>\n"
      + "    <Root level=\"warn\"/>\n"
      + "  </Loggers>\n"
      + "</Configuration>\n";

  @Test
  void recordsReachALog4j2RollingFileAppender() throws Exception {
    File out = dir.resolve("log4j2-out").toFile();
    File xml = dir.resolve("log4j2.xml").toFile();
    Files.write(xml.toPath(), String.format(CONFIG, out, out).getBytes(StandardCharsets.UTF_8));
    LoggerContext ctx = Configurator.initialize("nnaudit-test", xml.getPath());
    try {
      Configuration c = new Configuration(false);
      c.set(NnauditConfigKeys.FILE_PATH_KEY, dir.resolve("unused.log").toString());
      c.set(NnauditConfigKeys.SINK_KEY, "log4j2");
      QueuedAuditLogger l = new QueuedAuditLogger();
      l.initialize(c);
      int n = 500;
      FileStatus stat = new FileStatus(0, false, 1, 1, 1, 1, new FsPermission((short) 0644), "o", "g", null);
      for (int i = 0; i < n; i++) {
        l.logAuditEvent(true, "alice", null, "create", "/l4j2/" + i + "/new\nline", null, stat, null, null, null);
      }
      assertTrue(l.pipeline().close(30_000));
      assertEquals(n, l.stats().written);
    } finally {
      Configurator.shutdown(ctx);
    }
    List<String> lines = new ArrayList<>();
    File[] files = out.listFiles();
    assertTrue(files != null && files.length > 1, "the appender rolled and gzipped");
    for (File f : files) {
      if (f.getName().endsWith(".gz")) {
        try (InputStream in = new GZIPInputStream(new FileInputStream(f))) {
          String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
          for (String line : text.split("\n")) {
            lines.add(line);
          }
        }
      } else {
        lines.addAll(TestFiles.lines(f));
      }
    }
    assertEquals(500, lines.size(), "one log4j2 message per record");
    for (String line : lines) {
      assertTrue(line.matches("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d,\\d{3} INFO FSNamesystem\\.audit: allowed=true"
          + "\tugi=alice\tip=null\tcmd=create\tsrc=/l4j2/\\d+/new\\\\nline\tdst=null\tperm=o:g:rw-r--r--\tproto=null"),
          line);
    }
    assertFalse(dir.resolve("unused.log").toFile().exists(), "the file sink was not used");
  }

  @Test
  void durabilityCannotBeAskedOfLog4j2() {
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.FILE_PATH_KEY, dir.resolve("unused.log").toString());
    c.set(NnauditConfigKeys.SINK_KEY, "log4j2");
    c.set(NnauditConfigKeys.DURABILITY_KEY, "sync");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new QueuedAuditLogger().initialize(c));
    assertTrue(e.getMessage().contains("nnaudit.durability: 'sync'. Allowed: none with nnaudit.sink=log4j2"),
        e.getMessage());
  }

  private static void assertFalse(boolean b, String m) {
    assertTrue(!b, m);
  }
}
