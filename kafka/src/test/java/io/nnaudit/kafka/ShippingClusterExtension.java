package io.nnaudit.kafka;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.function.Supplier;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.MiniDFSNNTopology;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import io.nnaudit.QueuedAuditLogger;
import io.nnaudit.config.NnauditConfigKeys;

/**
 * What a shipping test sets up, and takes down after it whatever happened: a test broker in
 * {@code <dir>/broker}, NameNodes (a MiniDFSCluster) auditing under {@code <dir>/audit} and shipping to it. After
 * each test, in this order: the cluster is shut down, every pipeline is closed (as the JVM's exit would: each
 * shipper writes its checkpoint), and the broker is stopped. Registered on a field, with the test's
 * {@code @TempDir}:
 *
 * <pre>
 * &#64;TempDir Path dir;
 * &#64;RegisterExtension final ShippingClusterExtension kafka = new ShippingClusterExtension(() -&gt; dir);
 * </pre>
 */
final class ShippingClusterExtension implements AfterEachCallback {
  private final Supplier<Path> dir;
  private KafkaTestBroker broker;
  private MiniDFSCluster cluster;

  /** {@code dir}: the test's directory, read when first needed (after JUnit has made it). */
  ShippingClusterExtension(Supplier<Path> dir) {
    this.dir = dir;
  }

  Path dir() {
    return dir.get();
  }

  /** Where the NameNodes write their audit files. */
  File audits() {
    return dir().resolve("audit").toFile();
  }

  /** A test broker, started; stopped after the test. */
  KafkaTestBroker broker() throws IOException, InterruptedException {
    return start(new KafkaTestBroker(dir().resolve("broker")));
  }

  /** A test broker that enforces ACLs, started; stopped after the test. */
  KafkaTestBroker brokerWithAcls() throws IOException, InterruptedException {
    return start(new KafkaTestBroker(dir().resolve("broker")).withAcls());
  }

  /**
   * A test broker at a fixed address, not started: a NameNode can be pointed at it before it is up (the test
   * starts it). Stopped after the test.
   */
  KafkaTestBroker brokerNotYetStarted() throws IOException {
    broker = new KafkaTestBroker(dir().resolve("broker"));
    return broker;
  }

  private KafkaTestBroker start(KafkaTestBroker b) throws IOException, InterruptedException {
    broker = b;
    return b.start();
  }

  /**
   * One NameNode named {@code ns1/nn1} shipping to {@code topic} of the broker ({@link ShippingCluster#conf}).
   * The names are set: MiniDFSCluster moves the RPC port at a restart, which the default NameNode id would follow.
   */
  Configuration conf(String topic) {
    Configuration c = ShippingCluster.conf(dir().toFile(), audits(), false, broker, topic);
    c.set(NnauditConfigKeys.KAFKA_NAMESERVICE_ID_KEY, "ns1");
    c.set(NnauditConfigKeys.KAFKA_NAMENODE_ID_KEY, "nn1");
    return c;
  }

  /** An HA pair shipping to {@code topic} of the broker, each NameNode named from the HA configuration. */
  Configuration haConf(String topic) {
    return ShippingCluster.conf(dir().toFile(), audits(), true, broker, topic);
  }

  /** Starts one NameNode (no DataNode) with {@code conf} and waits for it; shut down after the test. */
  MiniDFSCluster start(Configuration conf) throws IOException {
    return await(new MiniDFSCluster.Builder(conf).numDataNodes(0).build());
  }

  /** Starts an HA pair (no DataNode, both standby) with {@code conf} and waits for it; shut down after the test. */
  MiniDFSCluster startHa(Configuration conf) throws IOException {
    return await(new MiniDFSCluster.Builder(conf).nnTopology(MiniDFSNNTopology.simpleHATopology()).numDataNodes(0)
        .build());
  }

  private MiniDFSCluster await(MiniDFSCluster c) throws IOException {
    cluster = c;
    c.waitActive();
    return c;
  }

  /** Shuts the cluster down and closes every pipeline, so that what they shipped can be read back. */
  void stopCluster() {
    MiniDFSCluster c = cluster;
    cluster = null;
    try {
      if (c != null) {
        c.shutdown();
      }
    } finally {
      QueuedAuditLogger.closeAll(10_000);
    }
  }

  @Override
  public void afterEach(ExtensionContext context) throws Exception {
    KafkaTestBroker b = broker;
    broker = null;
    try {
      stopCluster();
    } finally {
      if (b != null) {
        b.close();
      }
    }
  }
}
