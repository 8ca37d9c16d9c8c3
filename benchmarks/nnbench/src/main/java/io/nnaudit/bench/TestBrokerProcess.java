package io.nnaudit.bench;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.concurrent.TimeUnit;

/**
 * The test broker (kafka/test-broker) of the {@code nnaudit+kafka} variant, in a child JVM on a free port, with
 * the topic {@value Variants#TOPIC}; it stops when its stdin closes, so it cannot outlive this JVM. Its log is
 * {@code DIR/kafka-broker.log}.
 */
final class TestBrokerProcess {
  final int port;
  private final Process process;

  private TestBrokerProcess(int port, Process process) {
    this.port = port;
    this.process = process;
  }

  /** Starts the broker from its classpath file (kafka/test-broker/target/broker.classpath), data under dir. */
  static TestBrokerProcess start(File brokerClasspath, File dir) throws IOException, InterruptedException {
    String cp = new String(Files.readAllBytes(brokerClasspath.toPath()), StandardCharsets.UTF_8).trim();
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      port = s.getLocalPort();
    }
    Files.createDirectories(dir.toPath());
    File log = new File(dir, "kafka-broker.log");
    ProcessBuilder pb = new ProcessBuilder(new File(System.getProperty("java.home"), "bin/java").getPath(),
        "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", cp, "io.nnaudit.testbroker.TestBroker",
        String.valueOf(port), new File(dir, "kafka-broker").getAbsolutePath(), "--topic", Variants.TOPIC);
    pb.redirectError(log);
    Process p = pb.start();
    BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    String line = out.readLine(); // READY, or the end of the stream if the broker failed
    if (line == null || !line.startsWith("READY ")) {
      p.destroyForcibly().waitFor();
      throw new IllegalStateException("the test broker did not start; see " + log);
    }
    return new TestBrokerProcess(port, p);
  }

  void stop() throws InterruptedException {
    try {
      process.getOutputStream().close();
    } catch (IOException e) {
      // Already closed: the broker is stopping.
    }
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
    }
  }
}
