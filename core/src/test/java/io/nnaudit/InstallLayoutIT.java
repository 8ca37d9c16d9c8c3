package io.nnaudit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's install section, followed literally against the directory layout of a stock Hadoop tarball:
 * the packaged jar is copied into {@code share/hadoop/hdfs/lib}, block 1 of conf/hdfs-site.xml.example goes
 * into {@code etc/hadoop/hdfs-site.xml}, and the real {@code NameNode} main class is formatted and started
 * with the classpath {@code hadoop classpath} gives (etc/hadoop, share/hadoop/common, common/lib, hdfs,
 * hdfs/lib). Hadoop's binary tarball itself is not published to Maven Central, the only place this build can
 * fetch from, so the layout is filled with the same jars from Maven; the bin/ shell scripts are therefore not
 * run, but everything they do for the NameNode's classpath and configuration is.
 */
class InstallLayoutIT {
  @TempDir
  Path dir;

  @Test
  void theReadmeInstallStepsGiveANameNodeThatAuditsWithNnaudit() throws Exception {
    File jar = new File(System.getProperty("nnaudit.jar"));
    assertTrue(jar.isFile(), "the packaged jar: " + jar);
    File home = dir.resolve("hadoop-3.4").toFile();
    File common = mkdirs(home, "share/hadoop/common");
    File commonLib = mkdirs(home, "share/hadoop/common/lib");
    File hdfs = mkdirs(home, "share/hadoop/hdfs");
    File hdfsLib = mkdirs(home, "share/hadoop/hdfs/lib");
    File etc = mkdirs(home, "etc/hadoop");
    String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    for (String entry : cp.split(File.pathSeparator)) {
      File f = new File(entry);
      String n = f.getName();
      if (n.startsWith("hadoop-hdfs-") && n.endsWith("-tests.jar")) {
        unpackWebapps(f, hdfs); // the tarball's share/hadoop/hdfs/webapps; Maven ships them in the tests jar
        continue;
      }
      if (!f.isFile() || !n.endsWith(".jar") || n.contains("-tests") || n.startsWith("nnaudit")
          || n.startsWith("junit") || n.startsWith("mockito") || n.startsWith("log4j-core")
          || n.startsWith("log4j-api") || n.startsWith("surefire") || n.startsWith("failsafe")) {
        continue; // what a stock NameNode does not have
      }
      File to = n.startsWith("hadoop-common-") ? common : n.startsWith("hadoop-hdfs-") ? hdfs : commonLib;
      Files.copy(f.toPath(), new File(to, n).toPath());
    }
    // README, Install step 2: copy the jar to share/hadoop/hdfs/lib.
    Files.copy(jar.toPath(), new File(hdfsLib, jar.getName()).toPath(), StandardCopyOption.REPLACE_EXISTING);

    int rpcPort = freePort();
    File audit = dir.resolve("logs/nnaudit-audit.log").toFile();
    // README, Install step 3: block 1 of the example, with this test's paths.
    String example = new String(Files.readAllBytes(RepoRoot.resolve("conf/hdfs-site.xml.example")),
        StandardCharsets.UTF_8);
    String block1 = example.substring(example.indexOf("<!-- 1."), example.indexOf("<!-- 2."));
    block1 = block1.substring(block1.indexOf("-->") + 3).replace("/var/log/hadoop/hdfs/nnaudit-audit.log",
        audit.getPath());
    write(new File(etc, "hdfs-site.xml"), "<configuration>\n" + block1
        + "<property><name>dfs.namenode.name.dir</name><value>" + dir.resolve("name") + "</value></property>\n"
        + "<property><name>dfs.namenode.http-address</name><value>127.0.0.1:0</value></property>\n"
        + "<property><name>dfs.namenode.rpc-address</name><value>127.0.0.1:" + rpcPort + "</value></property>\n"
        + "</configuration>\n");
    write(new File(etc, "core-site.xml"), "<configuration>\n<property><name>fs.defaultFS</name><value>hdfs://127.0.0.1:"
        + rpcPort + "</value></property>\n<property><name>hadoop.tmp.dir</name><value>" + dir.resolve("tmp")
        + "</value></property>\n</configuration>\n");
    write(new File(etc, "log4j.properties"), "log4j.rootLogger=INFO,console\n"
        + "log4j.appender.console=org.apache.log4j.ConsoleAppender\n"
        + "log4j.appender.console.layout=org.apache.log4j.PatternLayout\n"
        + "log4j.appender.console.layout.ConversionPattern=%d{ISO8601} %p %c{2}: %m%n\n");
    String hadoopClasspath = etc + File.pathSeparator + common + "/*" + File.pathSeparator + commonLib + "/*"
        + File.pathSeparator + hdfs + File.pathSeparator + hdfs + "/*" + File.pathSeparator + hdfsLib + "/*";

    File formatOut = dir.resolve("format.out").toFile();
    Process format = nameNode(hadoopClasspath, formatOut, "-format", "-force", "-nonInteractive");
    assertTrue(format.waitFor(120, TimeUnit.SECONDS));
    assertEquals(0, format.exitValue(), read(formatOut));

    File nnOut = dir.resolve("namenode.out").toFile();
    Process nn = nameNode(hadoopClasspath, nnOut);
    try {
      awaitPort(rpcPort, nn, nnOut);
      Configuration conf = new HdfsConfiguration();
      conf.setInt("ipc.client.connect.max.retries", 50);
      try (FileSystem fs = FileSystem.newInstance(URI.create("hdfs://127.0.0.1:" + rpcPort), conf)) {
        waitOutOfSafeMode(fs);
        for (int i = 0; i < 20; i++) {
          assertTrue(fs.mkdirs(new org.apache.hadoop.fs.Path("/installed/d" + i)));
        }
      }
    } finally {
      nn.destroy(); // SIGTERM: a clean stop, so the shutdown hook drains the queue
      assertTrue(nn.waitFor(60, TimeUnit.SECONDS));
    }
    String log = read(nnOut);
    assertTrue(log.contains("nnaudit: started audit pipeline"), log);
    long mkdirs = TestFiles.operationRecords(audit).stream().filter(l -> l.contains("\tcmd=mkdirs\tsrc=/installed/d"))
        .count();
    assertEquals(20, mkdirs, "the NameNode audited through nnaudit, loaded from share/hadoop/hdfs/lib");
  }

  private Process nameNode(String classpath, File out, String... args) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(new File(System.getProperty("java.home"), "bin/java").getPath());
    cmd.add("-Xmx1g");
    cmd.add("-Dhadoop.log.dir=" + dir.resolve("logs"));
    cmd.add("--add-opens=java.base/java.lang=ALL-UNNAMED");
    cmd.add("-cp");
    cmd.add(classpath);
    cmd.add("org.apache.hadoop.hdfs.server.namenode.NameNode");
    for (String a : args) {
      cmd.add(a);
    }
    return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out).start();
  }

  private static void waitOutOfSafeMode(FileSystem fs) throws Exception {
    long deadline = System.currentTimeMillis() + 60_000;
    while (System.currentTimeMillis() < deadline) {
      try {
        fs.mkdirs(new org.apache.hadoop.fs.Path("/probe"));
        return;
      } catch (IOException safeMode) {
        Thread.sleep(200); // the poll interval of this bounded wait
      }
    }
    throw new AssertionError("the NameNode did not leave safe mode");
  }

  private static void awaitPort(int port, Process nn, File out) throws Exception {
    long deadline = System.currentTimeMillis() + 120_000;
    while (System.currentTimeMillis() < deadline) {
      if (!nn.isAlive()) {
        throw new AssertionError("the NameNode exited:\n" + read(out));
      }
      try (Socket s = new Socket("127.0.0.1", port)) {
        return;
      } catch (IOException notYet) {
        Thread.sleep(200); // the poll interval of this bounded wait
      }
    }
    throw new AssertionError("the NameNode did not open its RPC port:\n" + read(out));
  }

  private static void unpackWebapps(File jar, File into) throws IOException {
    try (java.util.zip.ZipFile z = new java.util.zip.ZipFile(jar)) {
      for (java.util.Enumeration<? extends java.util.zip.ZipEntry> en = z.entries(); en.hasMoreElements();) {
        java.util.zip.ZipEntry e = en.nextElement();
        if (!e.getName().startsWith("webapps/")) {
          continue;
        }
        File to = new File(into, e.getName());
        if (e.isDirectory()) {
          to.mkdirs();
        } else {
          to.getParentFile().mkdirs();
          try (java.io.InputStream in = z.getInputStream(e)) {
            Files.copy(in, to.toPath(), StandardCopyOption.REPLACE_EXISTING);
          }
        }
      }
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private static File mkdirs(File base, String rel) {
    File f = new File(base, rel);
    assertTrue(f.mkdirs() || f.isDirectory());
    return f;
  }

  private static void write(File f, String text) throws IOException {
    Files.write(f.toPath(), text.getBytes(StandardCharsets.UTF_8));
  }

  private static String read(File f) throws IOException {
    return f.exists() ? new String(Files.readAllBytes(f.toPath()), StandardCharsets.UTF_8) : "";
  }
}
