package io.nnaudit.sink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.config.Configurator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.AuditTestSupport;
import io.nnaudit.LoggerFixture;
import io.nnaudit.QueuedAuditLogger;
import io.nnaudit.TestFiles;
import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.settings.NnauditSettings;

/**
 * nnaudit.sink=log4j2 with real log4j2 configurations: a RollingFile appender that gzips what it rolls, and a
 * real appender that fails ({@link FlakyAppender}) to show that delivery is exact: a record the appender
 * refuses is retried alone, none is delivered twice, and none that failed is counted as written; a
 * configuration that would hide failures is refused at start-up.
 */
class Log4j2SinkTest {
  private static final Pattern SRC = Pattern.compile("\tsrc=([^\t]*)\t");
  private static final FileStatus STAT = new FileStatus(0, false, 1, 1, 1, 1, new FsPermission((short) 0644), "o",
      "g", null);

  @TempDir
  Path dir;
  private LoggerContext ctx;

  @RegisterExtension
  final LoggerFixture loggers = new LoggerFixture();

  /** A logger with no appender of its own: the tests attach a {@link FlakyAppender} to it. */
  private static final String FLAKY_CONFIG = "<Configuration status=\"warn\" name=\"flaky\">\n"
      + "  <Loggers>\n"
      + "    <Logger name=\"nnaudit.flaky\" level=\"info\" additivity=\"false\"/>\n"
      + "    <Logger name=\"nnaudit.quiet\" level=\"warn\" additivity=\"false\"/>\n"
      + "    <Root level=\"warn\"/>\n"
      + "  </Loggers>\n"
      + "</Configuration>\n";

  @AfterEach
  void shutDownLog4j2() {
    if (ctx != null) {
      Configurator.shutdown(ctx);
    }
  }

  private LoggerContext log4j2(String xml) throws IOException {
    File f = dir.resolve("log4j2-" + System.nanoTime() + ".xml").toFile();
    Files.write(f.toPath(), xml.getBytes(StandardCharsets.UTF_8));
    ctx = Configurator.initialize("nnaudit-test", f.getPath());
    return ctx;
  }

  private Configuration conf(String loggerName) {
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.FILE_PATH_KEY, dir.resolve("unused.log").toString());
    c.set(NnauditConfigKeys.SINK_KEY, "log4j2");
    c.set(NnauditConfigKeys.LOG4J2_LOGGER_KEY, loggerName);
    c.setLong(NnauditConfigKeys.FAILURE_RETRY_INTERVAL_MS_KEY, 1);
    // The test thread logs while the appender holds the writer: it must not wait for its records.
    c.set(NnauditConfigKeys.ACK_POLICY_KEY, "queue");
    return c;
  }

  private static List<String> srcs(List<String> messages) {
    List<String> out = new ArrayList<>();
    for (String m : messages) {
      Matcher matcher = SRC.matcher(m);
      if (matcher.find()) {
        out.add(matcher.group(1));
      }
    }
    return out;
  }

  private static final String CONFIG = "<Configuration status=\"warn\">\n"
      + "  <Appenders>\n"
      + "    <RollingFile name=\"audit\" fileName=\"%s/audit.log\" filePattern=\"%s/audit-%%i.log.gz\"\n"
      + "        ignoreExceptions=\"false\">\n"
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
    log4j2(String.format(CONFIG, out, out));
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.FILE_PATH_KEY, dir.resolve("unused.log").toString());
    c.set(NnauditConfigKeys.SINK_KEY, "log4j2");
    QueuedAuditLogger l = loggers.startWithNamedSink(c);
    int n = 500;
    for (int i = 0; i < n; i++) {
      l.logAuditEvent(true, "alice", null, "create", "/l4j2/" + i + "/new\nline", null, STAT, null, null, null);
    }
    assertTrue(l.pipeline().close(30_000));
    assertEquals(n, l.stats().written);
    Configurator.shutdown(ctx);
    ctx = null;
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
  void aChunkThatFailsPartWayIsResumedNotRepeated() throws Exception {
    FlakyAppender a = FlakyAppender.attach(log4j2(FLAKY_CONFIG), "nnaudit.flaky", "flaky", false)
        .failOnce(m -> m.equals("r3"));
    Log4j2Sink sink = new Log4j2Sink(NnauditSettings.fromConf(conf("nnaudit.flaky")).sinkContext());
    ByteBuffer chunk = ByteBuffer.wrap("r1\nr2\nr3\nr4\n".getBytes(StandardCharsets.UTF_8));
    assertThrows(IOException.class, () -> sink.write(chunk));
    assertEquals(Arrays.asList("r1", "r2"), a.messages());
    assertEquals(6, chunk.position(), "the position is left at the record that failed");
    chunk.rewind(); // as the writer retries
    sink.write(chunk);
    assertEquals(Arrays.asList("r1", "r2", "r3", "r4"), a.messages(), "each record once");
    assertEquals(chunk.limit(), chunk.position());

    // Retried without a rewind, from where the sink left the position: the same.
    a.failOnce(m -> m.equals("s2"));
    ByteBuffer second = ByteBuffer.wrap("s1\ns2\ns3\n".getBytes(StandardCharsets.UTF_8));
    assertThrows(IOException.class, () -> sink.write(second));
    sink.write(second);
    assertEquals(Arrays.asList("r1", "r2", "r3", "r4", "s1", "s2", "s3"), a.messages());

    // The same buffer holding other records after a failure is a new chunk, delivered whole.
    a.failOnce(m -> m.equals("t2"));
    byte[] bytes = "t1\nt2\nt3\n".getBytes(StandardCharsets.UTF_8);
    ByteBuffer reused = ByteBuffer.wrap(bytes);
    assertThrows(IOException.class, () -> sink.write(reused));
    System.arraycopy("u1\nu2\nu3\n".getBytes(StandardCharsets.UTF_8), 0, bytes, 0, bytes.length);
    reused.rewind();
    sink.write(reused);
    assertEquals(Arrays.asList("r1", "r2", "r3", "r4", "s1", "s2", "s3", "t1", "u1", "u2", "u3"), a.messages());
  }

  @Test
  void aRefusedRecordIsRetriedAloneAndEveryRecordCountedOnce() throws Exception {
    // The first record holds the writer until all the others are queued, so that the records that fail have
    // records before them in their chunk: a retry of the whole chunk would deliver those twice.
    FlakyAppender a = FlakyAppender.attach(log4j2(FLAKY_CONFIG), "nnaudit.flaky", "flaky", false)
        .holdOn(m -> m.contains("\tsrc=/e/0\t"))
        .failOnce(m -> m.contains("\tsrc=/e/7\t") || m.contains("\tsrc=/e/150\t") || m.contains("\tsrc=/e/299\t"));
    Configuration c = conf("nnaudit.flaky");
    c.setInt(NnauditConfigKeys.QUEUE_CAPACITY_KEY, 1024);
    QueuedAuditLogger l = loggers.startWithNamedSink(c);
    int n = 300;
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      l.logAuditEvent(true, "alice", null, "create", "/e/" + i, null, STAT, null, null, null);
      expected.add("/e/" + i);
    }
    a.release();
    assertTrue(l.pipeline().close(30_000));
    assertEquals(3, a.failures(), "the appender refused three records");
    assertEquals(expected, srcs(a.messages()), "every record delivered once, in order");
    assertEquals(n, l.stats().written);
    assertEquals(3, l.stats().sinkErrors);
    assertEquals(0, l.stats().droppedAfterAcceptance);
  }

  /**
   * Under the default ack policy, callers wait for their records. The first record holds the write until
   * seven more are queued, so that they go out as one chunk, and the appender refuses the sixth of them once.
   * With a sink that cannot take back a delivered record, only the writer thread writes (no caller leads a
   * write), and it retries the very same chunk: the records before the refused one are not delivered again.
   */
  @Test
  void underTheDefaultAckPolicyARefusedRecordIsNeverDeliveredTwice() throws Exception {
    FlakyAppender a = FlakyAppender.attach(log4j2(FLAKY_CONFIG), "nnaudit.flaky", "flaky", false)
        .holdOn(m -> m.contains("\tsrc=/h/0\t"))
        .failOnce(m -> m.contains("\tsrc=/h/5\t"));
    Configuration c = conf("nnaudit.flaky");
    c.unset(NnauditConfigKeys.ACK_POLICY_KEY);
    QueuedAuditLogger l = loggers.startWithNamedSink(c);
    List<Thread> ts = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      final int id = i;
      Thread th = new Thread(() ->
          l.logAuditEvent(true, "alice", null, "create", "/h/" + id, null, STAT, null, null, null));
      ts.add(th);
      th.start();
      if (i == 0) {
        AuditTestSupport.awaitTrue("the first record is taken from the queue and held in the appender", 10_000,
            () -> l.stats().accepted == 1 && l.stats().queueDepth == 0);
      }
    }
    AuditTestSupport.awaitTrue("the seven others are queued behind the held one", 10_000, () -> l.stats().queueDepth == 7);
    a.release();
    for (Thread th : ts) {
      th.join(60_000);
      assertFalse(th.isAlive(), "every caller got its answer");
    }
    assertTrue(l.pipeline().close(30_000));
    List<String> delivered = srcs(a.messages());
    assertEquals(1, a.failures(), "the appender refused one record");
    assertEquals(delivered.size(), new HashSet<>(delivered).size(), "no record delivered twice: " + delivered);
    assertEquals(8, delivered.size(), "every record delivered: " + delivered);
    assertEquals(8, l.stats().written);
    assertEquals(0, l.stats().aborted, l.stats().toString());
  }

  @Test
  void failOpenCountsNoRefusedRecordAsWritten() throws Exception {
    FlakyAppender a = FlakyAppender.attach(log4j2(FLAKY_CONFIG), "nnaudit.flaky", "flaky", false)
        .failAlways(m -> m.contains("\tsrc=/bad/"));
    Configuration c = conf("nnaudit.flaky");
    c.set(NnauditConfigKeys.FAILURE_POLICY_KEY, "fail-open");
    c.setInt(NnauditConfigKeys.WRITER_BATCH_MAX_EVENTS_KEY, 8);
    QueuedAuditLogger l = loggers.startWithNamedSink(c);
    int n = 400;
    int bad = 0;
    for (int i = 0; i < n; i++) {
      boolean refused = i % 25 == 3;
      bad += refused ? 1 : 0;
      l.logAuditEvent(true, "alice", null, "create", (refused ? "/bad/" : "/ok/") + i, null, STAT, null, null,
          null);
    }
    assertTrue(l.pipeline().close(30_000));
    List<String> delivered = srcs(a.messages());
    assertEquals(delivered.size(), new HashSet<>(delivered).size(), "no record delivered twice: " + delivered);
    assertTrue(delivered.stream().noneMatch(s -> s.startsWith("/bad/")));
    assertTrue(a.failures() >= bad, "every refused record was tried: " + a.failures());
    // A chunk given up under fail-open counts as dropped whole, including the records delivered before the
    // failure: written never exceeds what was delivered, and written and dropped together are every event.
    assertTrue(l.stats().written <= delivered.size(), l.stats() + ", delivered " + delivered.size());
    assertTrue(l.stats().written <= n - bad, l.stats().toString());
    assertEquals(n, l.stats().written + l.stats().droppedAfterAcceptance, l.stats().toString());
  }

  @Test
  void anAppenderThatIgnoresExceptionsIsRefusedAtStartUp() throws Exception {
    FlakyAppender a = FlakyAppender.attach(log4j2(FLAKY_CONFIG), "nnaudit.flaky", "hides-failures", true)
        .failAlways(m -> true);
    // Why: log4j2 returns from a record such an appender failed to write as if it had written it.
    LogManager.getContext(Log4j2Sink.class.getClassLoader(), false).getLogger("nnaudit.flaky").info("lost");
    assertEquals(1, a.failures());
    assertEquals(0, a.messages().size());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new QueuedAuditLogger().initialize(conf("nnaudit.flaky")));
    assertTrue(e.getMessage().startsWith("nnaudit: invalid value for nnaudit.log4j2.logger: 'nnaudit.flaky'. "
        + "Allowed: a log4j2 logger that reports every record it fails to write"), e.getMessage());
    assertTrue(e.getMessage().contains("appender 'hides-failures' has ignoreExceptions=\"true\""), e.getMessage());
    assertTrue(e.getMessage().contains("set ignoreExceptions=\"false\" on it"), e.getMessage());
  }

  @Test
  void aLoggerThatWouldDropEveryRecordIsRefusedAtStartUp() throws Exception {
    log4j2(FLAKY_CONFIG);
    IllegalArgumentException noAppender = assertThrows(IllegalArgumentException.class,
        () -> new QueuedAuditLogger().initialize(conf("nnaudit.flaky")));
    assertTrue(noAppender.getMessage().contains("no appender receives its records"), noAppender.getMessage());
    FlakyAppender.attach(ctx, "nnaudit.quiet", "quiet", false);
    IllegalArgumentException belowInfo = assertThrows(IllegalArgumentException.class,
        () -> new QueuedAuditLogger().initialize(conf("nnaudit.quiet")));
    assertTrue(belowInfo.getMessage().contains("not enabled at INFO (its level is WARN)"), belowInfo.getMessage());
  }

  @Test
  void whatMakesDeliveryInexactIsNamed() throws Exception {
    String out = dir.resolve("two").toString();
    log4j2("<Configuration status=\"warn\" name=\"two\">\n"
        + "  <Appenders>\n"
        + "    <File name=\"first\" fileName=\"" + out + "/1.log\" ignoreExceptions=\"false\"/>\n"
        + "    <File name=\"buffered\" fileName=\"" + out + "/2.log\" ignoreExceptions=\"false\""
        + " immediateFlush=\"false\"/>\n"
        + "  </Appenders>\n"
        + "  <Loggers>\n"
        + "    <Logger name=\"nnaudit.two\" level=\"info\" additivity=\"false\">\n"
        + "      <AppenderRef ref=\"first\"/><AppenderRef ref=\"buffered\"/>\n"
        + "    </Logger>\n"
        + "    <Root level=\"warn\"/>\n"
        + "  </Loggers>\n"
        + "</Configuration>\n");
    Log4j2Route.Findings f = Log4j2Route.check("nnaudit.two",
        LogManager.getContext(Log4j2Sink.class.getClassLoader(), false).getLogger("nnaudit.two")).read();
    assertEquals(0, f.losses.size(), f.losses.toString());
    assertEquals(2, f.inexact.size(), f.inexact.toString());
    assertTrue(f.inexact.stream().anyMatch(s -> s.startsWith("appender 'buffered' has immediateFlush=\"false\"")),
        f.inexact.toString());
    assertTrue(f.inexact.stream().anyMatch(s -> s.startsWith("its records reach 2 appenders (")
        && s.contains("'first'") && s.contains("'buffered'")), f.inexact.toString());
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
