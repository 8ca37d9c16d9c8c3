package io.nnaudit.kafka;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * A real Kafka broker for a test, in a child JVM: {@code io.nnaudit.testbroker.TestBroker} from the
 * kafka/test-broker module (Kafka 4.1, KRaft, one node), which needs kafka-clients 4.x and so cannot share the
 * test's classpath, where the module under test has 3.9. The test side talks to it with 3.9 clients only.
 *
 * <p>The port is chosen once, at construction, and the data directory is the caller's: {@link #restart()},
 * after {@link #stop()} or {@link #kill()}, brings back the same broker at the same address with its topics
 * and records, so a producer's bootstrap address stays valid across an outage. The child's stdout and stderr
 * are appended to {@code broker.log} in the data directory; a start that fails says so with the log's tail.
 * The child stops itself when its stdin closes, so it cannot outlive a test JVM that dies.
 *
 * <p>Not thread-safe: one test thread drives it.
 */
final class KafkaTestBroker implements AutoCloseable {

  /** The system property naming the file with the broker's classpath (set by kafka/pom.xml's surefire). */
  static final String CLASSPATH_PROPERTY = "nnaudit.test.broker.classpath";
  static final String MAIN_CLASS = "io.nnaudit.testbroker.TestBroker";
  /** The child's heap: enough for a few topics of test records, small enough for a 2-core CI machine. */
  static final String HEAP = "-Xmx512m";

  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(30);

  private final Path dataDir;
  private final Path log;
  /** Fixed once the broker has started: a restart comes back at the same address. */
  private int port;
  private boolean startedOnce;
  private Process process;
  private boolean paused;
  private Duration lastStartTime = Duration.ZERO;
  /** Start with an authorizer, every client being User:client (see TestBroker's acl argument). */
  private boolean acl;

  /** A broker (not yet started) on a free port, keeping its data in {@code dataDir}. */
  KafkaTestBroker(Path dataDir) throws IOException {
    this(dataDir, freePort());
  }

  KafkaTestBroker(Path dataDir, int port) throws IOException {
    this.dataDir = Files.createDirectories(dataDir.toAbsolutePath());
    this.log = this.dataDir.resolve("broker.log");
    this.port = port;
  }

  /**
   * From the next start on, with ACLs: every client is {@code User:client}, and what no ACL names is allowed;
   * {@link #denyWrites} then forbids a topic.
   */
  KafkaTestBroker withAcls() {
    this.acl = true;
    return this;
  }

  /** Forbids User:client to write to {@code topic} (needs {@link #withAcls}). */
  void denyWrites(String topic) throws InterruptedException, ExecutionException {
    try (Admin admin = Admin.create(adminConfig())) {
      admin.createAcls(List.of(new AclBinding(
          new ResourcePattern(ResourceType.TOPIC,
              topic, PatternType.LITERAL),
          new AccessControlEntry("User:client", "*",
              AclOperation.WRITE, AclPermissionType.DENY))))
          .all().get();
    }
  }

  /**
   * Starts the child JVM and returns once it takes connections. At the first start, a port taken meanwhile by
   * another process (the free port was only free when it was chosen) makes it try again on another.
   */
  KafkaTestBroker start() throws IOException, InterruptedException {
    for (int attempt = 1; ; attempt++) {
      try {
        startOnce();
        startedOnce = true;
        return this;
      } catch (IllegalStateException e) {
        if (startedOnce || attempt >= 3 || !logTail(80).contains("SocketServer Acceptors")) {
          throw e;
        }
        port = freePort();
      }
    }
  }

  private void startOnce() throws IOException, InterruptedException {
    if (process != null && process.isAlive()) {
      throw new IllegalStateException("the broker is running already (pid " + process.pid() + ")");
    }
    String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder pb = new ProcessBuilder(java, HEAP, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
        "-cp", brokerClasspath(), MAIN_CLASS, String.valueOf(port), dataDir.toString());
    if (acl) {
      pb.command().add("acl");
    }
    pb.redirectErrorStream(true);
    pb.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    long logStart = Files.exists(log) ? Files.size(log) : 0;
    long t0 = System.nanoTime();
    process = pb.start();
    awaitReady(logStart, t0);
    lastStartTime = Duration.ofNanos(System.nanoTime() - t0);
  }

  /** Stops the broker cleanly (closes its stdin); kills it if it is not gone within 30 s. */
  void stop() throws InterruptedException {
    if (process == null) {
      return;
    }
    if (paused) {
      resumeQuietly();
    }
    try {
      process.getOutputStream().close();
    } catch (IOException e) {
      // Already closed: the broker is stopping or gone.
    }
    if (!process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly().waitFor();
    }
    process = null;
    paused = false;
  }

  /** Kills the broker at once, as {@code kill -9} does: no clean shutdown of its logs. */
  void kill() throws InterruptedException {
    if (process == null) {
      return;
    }
    process.destroyForcibly().waitFor();
    process = null;
    paused = false;
  }

  /** Starts the broker again (stopping it first if it runs), at the same address with the same data. */
  KafkaTestBroker restart() throws IOException, InterruptedException {
    stop();
    return start();
  }

  /** Freezes the broker (SIGSTOP): connections stay open and nothing answers, as with a hung broker. */
  void pause() throws IOException, InterruptedException {
    signal("STOP");
    paused = true;
  }

  /** Lets a paused broker go on (SIGCONT). */
  void resume() throws IOException, InterruptedException {
    signal("CONT");
    paused = false;
  }

  String bootstrapServers() {
    return "127.0.0.1:" + port;
  }

  int port() {
    return port;
  }

  Path log() {
    return log;
  }

  /** How long the last start took, from launching the JVM to READY. */
  Duration lastStartTime() {
    return lastStartTime;
  }

  boolean isRunning() {
    return process != null && process.isAlive();
  }

  /** Creates a topic (replication factor 1) and returns once every partition has a leader. */
  void createTopic(String name, int partitions) throws InterruptedException, ExecutionException {
    createTopic(name, partitions, Collections.emptyMap());
  }

  /** As above, with the topic's own {@code configs} ({@code max.message.bytes} ...). */
  void createTopic(String name, int partitions, Map<String, String> configs)
      throws InterruptedException, ExecutionException {
    try (Admin admin = Admin.create(adminConfig())) {
      admin.createTopics(Collections.singleton(new NewTopic(name, partitions, (short) 1).configs(configs))).all()
          .get();
      long deadline = System.nanoTime() + ADMIN_TIMEOUT.toNanos();
      while (true) {
        try {
          TopicDescription d = admin.describeTopics(Collections.singleton(name)).allTopicNames().get().get(name);
          if (d.partitions().size() == partitions
              && d.partitions().stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty())) {
            return;
          }
        } catch (ExecutionException e) {
          // UnknownTopicOrPartition until the broker has the metadata: try again.
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("topic " + name + " has no leaders after " + ADMIN_TIMEOUT);
        }
        Thread.sleep(50);
      }
    }
  }

  /**
   * Every record of {@code topic}, all partitions from the beginning, headers included: reads until at least
   * {@code expectedAtLeast} records are in and every partition has been read to its end offset as of that
   * moment, or until {@code timeout}. Returns what it has then (possibly fewer: the caller asserts), in
   * partition order, then offset order. Commits nothing (no consumer group).
   */
  List<ConsumerRecord<byte[], byte[]>> readAll(String topic, int expectedAtLeast, Duration timeout) {
    Properties p = new Properties();
    p.setProperty(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    p.setProperty(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.setProperty(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.setProperty(ConsumerConfig.CLIENT_ID_CONFIG, "kafka-test-broker-reader");
    long deadline = System.nanoTime() + timeout.toNanos();
    List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
             new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<PartitionInfo> infos = consumer.partitionsFor(topic, timeout);
      List<TopicPartition> partitions = infos.stream()
          .map(i -> new TopicPartition(i.topic(), i.partition()))
          .sorted((a, b) -> Integer.compare(a.partition(), b.partition()))
          .collect(Collectors.toList());
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> ends = null;
      while (System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(100)).forEach(records::add);
        if (records.size() >= expectedAtLeast) {
          if (ends == null) {
            ends = consumer.endOffsets(partitions);
          }
          if (readToEnd(consumer, ends)) {
            break;
          }
        }
      }
    }
    records.sort((a, b) -> a.partition() != b.partition()
        ? Integer.compare(a.partition(), b.partition()) : Long.compare(a.offset(), b.offset()));
    return records;
  }

  private static boolean readToEnd(KafkaConsumer<?, ?> consumer, Map<TopicPartition, Long> ends) {
    return ends.entrySet().stream().allMatch(e -> consumer.position(e.getKey()) >= e.getValue());
  }

  /** The last lines of broker.log, for a failure message. */
  String logTail(int lines) {
    try {
      List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  @Override
  public void close() throws InterruptedException {
    stop();
  }

  private Properties adminConfig() {
    Properties p = new Properties();
    p.setProperty(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    p.setProperty(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, String.valueOf(ADMIN_TIMEOUT.toMillis()));
    return p;
  }

  private void awaitReady(long logStart, long t0) throws IOException, InterruptedException {
    String ready = "READY " + bootstrapServers();
    long deadline = t0 + START_TIMEOUT.toNanos();
    while (true) {
      if (Files.exists(log) && readFrom(logStart).lines().anyMatch(ready::equals)) {
        return;
      }
      if (!process.isAlive()) {
        int code = process.exitValue();
        process = null;
        throw new IllegalStateException("the test broker exited with code " + code + " before " + ready
            + "; " + log + " ends with:\n" + logTail(40));
      }
      if (System.nanoTime() > deadline) {
        kill();
        throw new IllegalStateException("the test broker printed no '" + ready + "' within " + START_TIMEOUT
            + "; " + log + " ends with:\n" + logTail(40));
      }
      Thread.sleep(50);
    }
  }

  private String readFrom(long offset) throws IOException {
    byte[] all = Files.readAllBytes(log);
    return new String(all, (int) Math.min(offset, all.length), (int) Math.max(0, all.length - offset),
        StandardCharsets.UTF_8);
  }

  private void signal(String signal) throws IOException, InterruptedException {
    if (process == null) {
      throw new IllegalStateException("the broker is not running");
    }
    Process kill = new ProcessBuilder("kill", "-" + signal, String.valueOf(process.pid()))
        .redirectErrorStream(true).start();
    if (kill.waitFor() != 0) {
      throw new IOException("kill -" + signal + " " + process.pid() + " failed: "
          + new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }
  }

  /** A stopped (SIGSTOP) JVM cannot see its stdin close; let it go on before stopping it. */
  private void resumeQuietly() {
    try {
      resume();
    } catch (IOException | InterruptedException | IllegalStateException e) {
      // Best effort: stop() falls back to destroyForcibly.
    }
  }

  private static String brokerClasspath() throws IOException {
    String file = System.getProperty(CLASSPATH_PROPERTY);
    String hint = "build the test broker first: mvn -B -f kafka/test-broker/pom.xml package"
        + " (it writes kafka/test-broker/target/broker.classpath; kafka/pom.xml's surefire passes that file"
        + " as the system property " + CLASSPATH_PROPERTY + ")";
    if (file == null) {
      throw new IllegalStateException("system property " + CLASSPATH_PROPERTY + " is not set: " + hint);
    }
    Path path = Paths.get(file);
    if (!Files.isRegularFile(path)) {
      throw new IllegalStateException("no broker classpath at " + path + ": " + hint);
    }
    return new String(Files.readAllBytes(path), StandardCharsets.UTF_8).trim();
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      return socket.getLocalPort();
    }
  }
}
