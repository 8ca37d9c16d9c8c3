package io.nnaudit;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import io.nnaudit.sink.SinkFactory;

/**
 * One test's audit set-up: a directory of its own for the audit files, one {@link GatedFileSink} the test holds
 * to stall, fail or inspect the disk, the loggers it starts, all writing through that sink (unless started with
 * sinks of their own), and the NameNodes it starts ({@link #startCluster}). A test states only the settings
 * that differ: {@code QueuedAuditLogger l = audit.start(c -> c.setInt(QUEUE_CAPACITY_KEY, 4));}.
 *
 * <p>After the test the sink's gates open and its delays end first (so that no stalled or slowed writer holds
 * a close back), then the NameNodes started here are shut down ({@link MiniClusterFixture}), every logger
 * started here is closed, its queue drained, the sink is {@link GatedFileSink#uninstall uninstalled}, and the
 * directory is deleted. Use as {@code @RegisterExtension final LoggerFixture audit = new LoggerFixture();}.
 */
public final class LoggerFixture implements BeforeEachCallback, AfterEachCallback {
  private final Consumer<Configuration> classSettings;
  private final GatedFileSink sink = new GatedFileSink();
  private final MiniClusterFixture nameNodes = new MiniClusterFixture();
  private final Closer loggers = new Closer();
  private Path dir;

  public LoggerFixture() {
    this(c -> { });
  }

  /** With settings every test of the class shares, applied before each test's own. */
  public LoggerFixture(Consumer<Configuration> classSettings) {
    this.classSettings = classSettings;
  }

  @Override
  public void beforeEach(ExtensionContext context) throws IOException {
    dir = Files.createTempDirectory("nnaudit-" + context.getRequiredTestMethod().getName() + "-");
  }

  @Override
  public void afterEach(ExtensionContext context) throws Exception {
    sink.openGates();
    sink.delayWrites(0);
    sink.delayForces(0);
    try {
      nameNodes.shutdownAll();
    } finally {
      try {
        loggers.close();
      } finally {
        sink.uninstall();
        if (dir != null) { // null: beforeEach failed
          TestFiles.deleteTree(dir);
        }
      }
    }
  }

  /** The sink every logger of this test writes through. */
  public GatedFileSink sink() {
    return sink;
  }

  /** This test's directory, deleted after it. */
  public File dir() {
    return dir.toFile();
  }

  /** The test's audit file: {@code audit.log} in its directory. */
  public File file() {
    return file("audit.log");
  }

  /** Another file in the test's directory. */
  public File file(String name) {
    return dir.resolve(name).toFile();
  }

  /** The settings of a test logger ({@link AuditTestSupport#conf}) for the test's audit file. */
  public Configuration conf() {
    return conf(file());
  }

  /** The settings of a test logger for {@code auditFile}, with the class's settings applied. */
  public Configuration conf(File auditFile) {
    Configuration c = AuditTestSupport.conf(auditFile);
    classSettings.accept(c);
    return c;
  }

  /** Starts a logger of the test's audit file with the class's settings. */
  public QueuedAuditLogger start() {
    return start(conf());
  }

  /** Starts a logger of the test's audit file with the class's settings and then {@code settings}. */
  public QueuedAuditLogger start(Consumer<Configuration> settings) {
    Configuration c = conf();
    settings.accept(c);
    return start(c);
  }

  /** Starts a logger with these settings, writing through {@link #sink()}; it is closed after the test. */
  public QueuedAuditLogger start(Configuration c) {
    return start(sink.factory(), c);
  }

  /** Starts a logger with these settings writing to the sinks {@code sinks} opens; it is closed after the test. */
  public QueuedAuditLogger start(SinkFactory sinks, Configuration c) {
    return closedAfter(AuditTestSupport.logger(c, sinks));
  }

  /**
   * Starts a logger as FSNamesystem creates it ({@link AuditTestSupport#logger(Configuration)}), writing to the
   * sink {@code nnaudit.sink} names rather than through {@link #sink()}; it is closed after the test.
   */
  public QueuedAuditLogger startWithNamedSink(Configuration c) {
    return closedAfter(AuditTestSupport.logger(c));
  }

  private QueuedAuditLogger closedAfter(QueuedAuditLogger l) {
    loggers.add(() -> l.pipeline().close(10_000));
    return l;
  }

  /** Starts a NameNode ({@link MiniClusterFixture#start}) with these settings; it is shut down after the test. */
  public MiniDFSCluster startCluster(Configuration c) throws Exception {
    return nameNodes.start(c);
  }

  /**
   * A MiniDFSCluster configuration ({@link MiniClusterSupport#conf}) under the test's directory, whose NameNode
   * writes {@code auditFileName} with nnaudit through {@link #sink()}: the NameNode creates its logger by class
   * name, so the sink is {@link GatedFileSink#installIn installed} for that file.
   */
  public Configuration clusterConf(String auditFileName) {
    Configuration c = MiniClusterSupport.conf(dir(), file(auditFileName), QueuedAuditLogger.class.getName());
    sink.installIn(c);
    return c;
  }

  /**
   * Blocks the writer inside a write of the stalled sink, holding the event {@code src}, so that everything
   * logged afterwards stays queued until {@code sink().resume()}.
   */
  public void stallWriter(QueuedAuditLogger l, String src) throws InterruptedException {
    sink.stall();
    AuditTestSupport.logCreate(l, src);
    AuditTestSupport.awaitTrue("the writer to block in the sink", 10_000, () -> sink.writersWaiting() == 1);
  }
}
