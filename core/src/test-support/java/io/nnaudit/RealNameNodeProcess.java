package io.nnaudit;

import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;

import io.nnaudit.config.NnauditConfigKeys;

/**
 * The stock {@code NameNode} main class in a JVM of its own, audited by nnaudit, for tests that stop it the way
 * an operator does: with a signal. Unlike {@code MiniDFSCluster.shutdown()}, which stops RPC first, SIGTERM runs
 * the JVM's shutdown hooks while the IPC handlers go on answering calls until the JVM halts.
 *
 * <p>{@link #start} writes a conf directory (core-site.xml, hdfs-site.xml, log4j.properties logging at INFO to
 * stdout), formats the name directory with {@code NameNode -format} in one child JVM, starts the NameNode in
 * another with the conf directory first on the test classpath (nnaudit's classes are in target/classes there),
 * and returns once a client call succeeds and the NameNode is out of safe mode.
 */
public final class RealNameNodeProcess implements AutoCloseable {
  public static final String NAME_NODE = "org.apache.hadoop.hdfs.server.namenode.NameNode";
  private static final long FORMAT_TIMEOUT_MS = 120_000;
  private static final long START_TIMEOUT_MS = 120_000;
  private static final long STOP_TIMEOUT_MS = 60_000;

  private final ChildJvm jvm;
  private final URI uri;
  private final File auditFile;

  private RealNameNodeProcess(ChildJvm jvm, URI uri, File auditFile) {
    this.jvm = jvm;
    this.uri = uri;
    this.auditFile = auditFile;
  }

  /**
   * Formats and starts a NameNode under {@code baseDir}, its audit file at {@code baseDir/audit/audit.log}.
   * {@code extraHdfsSite} is added to hdfs-site.xml last, so it may override any property written here.
   */
  public static RealNameNodeProcess start(File baseDir, Map<String, String> extraHdfsSite) throws Exception {
    return start(baseDir, extraHdfsSite, new LinkedHashMap<>());
  }

  /**
   * As {@link #start(File, Map)}, with more files in the conf directory, by name (a
   * {@code hadoop-metrics2-namenode.properties}, which the NameNode's metrics system reads before the test
   * classpath's {@code hadoop-metrics2.properties}).
   */
  public static RealNameNodeProcess start(File baseDir, Map<String, String> extraHdfsSite, Map<String, String> confFiles)
      throws Exception {
    int port = ChildServer.freePort();
    URI uri = URI.create("hdfs://127.0.0.1:" + port);
    File auditFile = new File(baseDir, "audit/audit.log");
    File conf = new File(baseDir, "conf");
    if (!conf.isDirectory() && !conf.mkdirs()) {
      throw new IOException("cannot create " + conf);
    }
    Map<String, String> core = new LinkedHashMap<>();
    core.put("fs.defaultFS", uri.toString());
    core.put("hadoop.tmp.dir", new File(baseDir, "tmp").getAbsolutePath());
    writeSite(new File(conf, "core-site.xml"), core);
    Map<String, String> hdfs = new LinkedHashMap<>();
    hdfs.put("dfs.namenode.name.dir", new File(baseDir, "name").toURI().toString());
    hdfs.put("dfs.namenode.rpc-address", "127.0.0.1:" + port);
    hdfs.put("dfs.namenode.http-address", "127.0.0.1:0");
    hdfs.put("dfs.namenode.top.enabled", "false");
    hdfs.put("dfs.namenode.handler.count", "16");
    hdfs.put("dfs.namenode.audit.loggers", QueuedAuditLogger.class.getName());
    hdfs.put(NnauditConfigKeys.FILE_PATH_KEY, auditFile.getAbsolutePath());
    hdfs.putAll(extraHdfsSite);
    writeSite(new File(conf, "hdfs-site.xml"), hdfs);
    write(new File(conf, "log4j.properties"), "log4j.rootLogger=INFO,console\n"
        + "log4j.appender.console=org.apache.log4j.ConsoleAppender\n"
        + "log4j.appender.console.target=System.out\n"
        + "log4j.appender.console.layout=org.apache.log4j.PatternLayout\n"
        + "log4j.appender.console.layout.ConversionPattern=%d{ISO8601} %p [%t] %c{2}: %m%n\n");
    for (Map.Entry<String, String> f : confFiles.entrySet()) {
      write(new File(conf, f.getKey()), f.getValue());
    }

    List<String> options = jvmOptions(new File(baseDir, "logs"));
    String classPath = conf.getAbsolutePath() + File.pathSeparator + ChildJvm.testClassPath(entry -> true);
    try (ChildJvm format = new ChildJvm(options, classPath, NAME_NODE, "-format", "-force", "-nonInteractive")) {
      format.awaitExit(FORMAT_TIMEOUT_MS);
      if (format.process.exitValue() != 0) {
        throw new AssertionError("NameNode -format exited with " + format.process.exitValue() + ":\n"
            + format.output());
      }
    }
    return ChildServer.readyOrClosed(new RealNameNodeProcess(new ChildJvm(options, classPath, NAME_NODE), uri,
        auditFile), RealNameNodeProcess::awaitServing);
  }

  /** hdfs://127.0.0.1:PORT of the NameNode's RPC server. */
  public URI uri() {
    return uri;
  }

  /** The live audit file; rotated files sit beside it as {@code audit.log.1}, {@code .2}, ... */
  public File auditFile() {
    return auditFile;
  }

  public long pid() {
    return jvm.process.pid();
  }

  public boolean isAlive() {
    return jvm.process.isAlive();
  }

  /** Every line the NameNode printed so far, stdout and stderr. */
  public List<String> output() {
    String all = jvm.output();
    return all.isEmpty() ? new ArrayList<>() : new ArrayList<>(Arrays.asList(all.split("\n")));
  }

  /**
   * SIGTERM (as {@code kill PID}): waits for the JVM to exit and returns its exit status. The signal is sent
   * through the {@link ProcessHandle}: {@code Process.destroy()} would also close our end of the child's stdout,
   * and what the NameNode logs while it stops would be lost.
   */
  public int sigterm() throws InterruptedException {
    jvm.process.toHandle().destroy();
    return awaitExit();
  }

  /** SIGKILL (as {@code kill -9 PID}): no shutdown hook runs. Waits for the exit and returns its status. */
  public int sigkill() throws InterruptedException {
    jvm.process.toHandle().destroyForcibly();
    return awaitExit();
  }

  private int awaitExit() throws InterruptedException {
    jvm.awaitExit(STOP_TIMEOUT_MS);
    return jvm.process.exitValue();
  }

  /** Kills the NameNode if it still runs. */
  @Override
  public void close() throws InterruptedException {
    jvm.close();
  }

  /** Until {@code getFileStatus("/")} answers and safe mode is off, with fresh attempts every 200 ms. */
  private void awaitServing() throws Exception {
    try (FileSystem fs = FileSystem.newInstance(uri, MkdirsLoad.failFastClientConf())) {
      ChildServer.awaitReady("the NameNode", jvm.process, jvm::output, START_TIMEOUT_MS, 200, () -> {
        fs.getFileStatus(new Path("/"));
        return !((DistributedFileSystem) fs).isInSafeMode();
      });
    }
  }

  /**
   * The module flags of this test JVM (the surefire argLine's {@code --add-opens} and {@code --add-exports}),
   * so that the NameNode runs as the MiniDFSCluster tests do; a heap bound; and the log directory.
   */
  private static List<String> jvmOptions(File logDir) {
    List<String> options = new ArrayList<>();
    options.add("-Xmx1g");
    options.add("-Dhadoop.log.dir=" + logDir.getAbsolutePath());
    for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (arg.startsWith("--add-opens=") || arg.startsWith("--add-exports=")) {
        options.add(arg);
      }
    }
    if (options.stream().noneMatch(o -> o.startsWith("--add-opens=java.base/java.lang="))) {
      options.add("--add-opens=java.base/java.lang=ALL-UNNAMED");
    }
    return options;
  }

  private static void writeSite(File f, Map<String, String> properties) throws IOException {
    Configuration c = new Configuration(false);
    properties.forEach(c::set);
    try (java.io.OutputStream out = Files.newOutputStream(f.toPath())) {
      c.writeXml(out);
    }
  }

  private static void write(File f, String text) throws IOException {
    Files.write(f.toPath(), text.getBytes(StandardCharsets.UTF_8));
  }
}
