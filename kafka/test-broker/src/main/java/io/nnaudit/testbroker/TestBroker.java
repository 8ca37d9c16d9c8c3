package io.nnaudit.testbroker;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * A single-node Kafka (KRaft, one combined broker and controller) for the tests of nnaudit-kafka, run as a
 * child process: {@code java -cp $(cat target/broker.classpath) io.nnaudit.testbroker.TestBroker PORT DATA_DIR
 * [acl] [--topic NAME]...}.
 *
 * <p>The broker listens with PLAINTEXT on 127.0.0.1:PORT and keeps its logs in DATA_DIR/kafka. Each topic named
 * with {@code --topic} is created (one partition) if it does not exist yet, for callers without a Kafka admin
 * client of their own (the benchmark harnesses). It prints {@code READY 127.0.0.1:PORT} on stdout once it takes
 * connections and the topics named have leaders, and shuts down cleanly (exit code 0) when its stdin reaches end
 * of file, which also happens when the test JVM that started it dies: no broker outlives its test. Its own log
 * goes to stderr.
 *
 * <p>Design note. This runs the server's own entry class, {@link KafkaRaftServer}, from a generated
 * server.properties (written to DATA_DIR/server.properties for reading), after formatting the storage with the
 * {@link Formatter} API the first time. It does not use {@code KafkaClusterTestKit}: the test kit picks its
 * own ports and its own temporary directories on each start, while the tests here need a broker that comes
 * back after a stop or a crash at the same address with the same data, as a real one does. With the server
 * class the port and the directory are plain settings: a restart is the same command again. The storage is
 * formatted only when DATA_DIR/kafka has no meta.properties, so a restart keeps the cluster id, the topics and
 * the records. The controller's listener gets a fresh ephemeral port at each start; that is safe because the
 * quorum is static ({@code controller.quorum.voters}), read from the configuration rather than the log.
 *
 * <p>Sized for {@code -Xmx512m} on a small machine: two network and two I/O threads, one partition for the
 * internal topics, 8 MiB log segments, a 4 MiB cleaner buffer instead of 128 MiB. Topics are never created
 * on the fly ({@code auto.create.topics.enable=false}): a test creates its topics, and writing to a missing
 * topic is an error, as on a production cluster. Replication factors and min.insync.replicas are 1.
 */
public final class TestBroker {

  private static final String HOST = "127.0.0.1";

  private TestBroker() {
  }

  public static void main(String[] args) throws Exception {
    // slf4j-simple, to stderr, before the first logger is made: INFO with times, for a failing test to show.
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "info");
    System.setProperty("org.slf4j.simpleLogger.showDateTime", "true");
    System.setProperty("org.slf4j.simpleLogger.dateTimeFormat", "HH:mm:ss.SSS");
    boolean acl = false;
    List<String> topics = new ArrayList<>();
    boolean usage = args.length < 2;
    for (int i = 2; i < args.length && !usage; i++) {
      if (args[i].equals("acl")) {
        acl = true;
      } else if (args[i].equals("--topic") && i + 1 < args.length) {
        topics.add(args[++i]);
      } else {
        usage = true;
      }
    }
    if (usage) {
      System.err.println("usage: TestBroker PORT DATA_DIR [acl] [--topic NAME]...");
      System.exit(2);
    }
    int port = Integer.parseInt(args[0]);
    Path dataDir = Paths.get(args[1]).toAbsolutePath();
    Path logDir = dataDir.resolve("kafka");
    Files.createDirectories(logDir);

    Properties props = serverProperties(port, controllerPort(port), logDir);
    if (acl) {
      // ACLs for clients: each is User:client (ListenerPrincipalBuilder); what no ACL names is allowed.
      props.setProperty("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
      props.setProperty("allow.everyone.if.no.acl.found", "true");
      props.setProperty("super.users", "User:ANONYMOUS");
      props.setProperty("principal.builder.class", ListenerPrincipalBuilder.class.getName());
    }
    try (OutputStream out = Files.newOutputStream(dataDir.resolve("server.properties"))) {
      props.store(out, "written by " + TestBroker.class.getName() + " at each start");
    }
    KafkaConfig config = KafkaConfig.fromProps(props);
    if (!Files.exists(logDir.resolve("meta.properties"))) {
      format(config, logDir);
    }

    KafkaRaftServer server = new KafkaRaftServer(config, Time.SYSTEM);
    AtomicBoolean stopped = new AtomicBoolean();
    Runnable stop = () -> {
      if (stopped.compareAndSet(false, true)) {
        server.shutdown();
        server.awaitShutdown();
      }
    };
    // A SIGTERM (or a System.exit elsewhere) still leaves clean logs behind.
    Runtime.getRuntime().addShutdownHook(new Thread(stop, "test-broker-shutdown-hook"));
    server.startup();
    awaitListening(port);
    createTopics(port, topics);
    System.out.println("READY " + HOST + ":" + port);
    System.out.flush();

    drain(System.in);
    System.err.println("TestBroker: stdin closed, shutting down");
    stop.run();
    System.err.println("TestBroker: stopped");
    System.exit(0);
  }

  static Properties serverProperties(int port, int controllerPort, Path logDir) {
    Properties p = new Properties();
    p.setProperty("process.roles", "broker,controller");
    p.setProperty("node.id", "1");
    p.setProperty("controller.quorum.voters", "1@" + HOST + ":" + controllerPort);
    p.setProperty("listeners", "PLAINTEXT://" + HOST + ":" + port + ",CONTROLLER://" + HOST + ":" + controllerPort);
    p.setProperty("advertised.listeners", "PLAINTEXT://" + HOST + ":" + port);
    p.setProperty("controller.listener.names", "CONTROLLER");
    p.setProperty("inter.broker.listener.name", "PLAINTEXT");
    p.setProperty("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    p.setProperty("log.dirs", logDir.toString());

    p.setProperty("auto.create.topics.enable", "false");
    p.setProperty("offsets.topic.replication.factor", "1");
    p.setProperty("offsets.topic.num.partitions", "1");
    p.setProperty("transaction.state.log.replication.factor", "1");
    p.setProperty("transaction.state.log.min.isr", "1");
    p.setProperty("transaction.state.log.num.partitions", "1");
    p.setProperty("share.coordinator.state.topic.replication.factor", "1");
    p.setProperty("share.coordinator.state.topic.min.isr", "1");
    p.setProperty("default.replication.factor", "1");
    p.setProperty("min.insync.replicas", "1");
    p.setProperty("group.initial.rebalance.delay.ms", "0");
    // After a kill -9 the controller (restarted with the broker) still holds the dead incarnation's session
    // and refuses the new registration until that session expires: 9 s by default, 3 s here.
    p.setProperty("broker.session.timeout.ms", "3000");
    p.setProperty("broker.heartbeat.interval.ms", "500");

    p.setProperty("num.network.threads", "2");
    p.setProperty("num.io.threads", "2");
    p.setProperty("background.threads", "2");
    p.setProperty("num.recovery.threads.per.data.dir", "1");
    p.setProperty("log.segment.bytes", String.valueOf(8 << 20));
    p.setProperty("log.cleaner.dedupe.buffer.size", String.valueOf(4 << 20));
    p.setProperty("log.cleaner.threads", "1");
    return p;
  }

  /** Formats DATA_DIR/kafka as a new one-node cluster: what {@code kafka-storage.sh format} does. */
  private static void format(KafkaConfig config, Path logDir) throws Exception {
    PrintStream log = new PrintStream(System.err, true, StandardCharsets.UTF_8);
    new Formatter()
        .setPrintStream(log)
        .setNodeId(config.nodeId())
        .setClusterId(Uuid.randomUuid().toString())
        .addDirectory(logDir.toString())
        .setMetadataLogDirectory(logDir.toString())
        .setControllerListenerName("CONTROLLER")
        .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
        .run();
  }

  /** Creates the topics not there yet (one partition each) and waits until each has a leader. */
  private static void createTopics(int port, List<String> topics) throws Exception {
    if (topics.isEmpty()) {
      return;
    }
    Properties p = new Properties();
    p.setProperty(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, HOST + ":" + port);
    try (Admin admin = Admin.create(p)) {
      Set<String> missing = new HashSet<>(topics);
      missing.removeAll(admin.listTopics().names().get());
      admin.createTopics(missing.stream().map(t -> new NewTopic(t, 1, (short) 1)).collect(Collectors.toList()))
          .all().get();
      long deadline = System.nanoTime() + 60_000_000_000L;
      while (true) {
        try {
          Map<String, TopicDescription> d = admin.describeTopics(topics).allTopicNames().get();
          if (d.values().stream().allMatch(t -> t.partitions().stream().allMatch(x -> x.leader() != null))) {
            return;
          }
        } catch (ExecutionException e) {
          // Unknown topic until the metadata has reached the broker: look again.
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the topics " + topics + " have no leaders after 60 s");
        }
        Thread.sleep(50);
      }
    }
  }

  /**
   * A free port for the controller that is not the broker's own. The broker's port was chosen free by the parent
   * and released, so the kernel may well hand the same number out again here.
   */
  static int controllerPort(int brokerPort) throws IOException {
    while (true) {
      int candidate = freePort();
      if (candidate != brokerPort) {
        return candidate;
      }
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getByName(HOST))) {
      return socket.getLocalPort();
    }
  }

  /** startup() returns once request processing is on; a connect proves it before READY is printed. */
  private static void awaitListening(int port) throws InterruptedException {
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (true) {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress(HOST, port), 1000);
        return;
      } catch (IOException e) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the broker does not take connections on " + HOST + ":" + port, e);
        }
        Thread.sleep(50);
      }
    }
  }

  private static void drain(InputStream in) {
    byte[] buffer = new byte[256];
    try {
      while (in.read(buffer) >= 0) {
        // Nothing is read from stdin; only its end matters.
      }
    } catch (IOException e) {
      // A broken stdin means the parent is gone: stop as on end of file.
    }
  }
}
