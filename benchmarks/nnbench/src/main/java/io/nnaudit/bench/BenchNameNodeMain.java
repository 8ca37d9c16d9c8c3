package io.nnaudit.bench;

import java.io.File;
import java.lang.management.ManagementFactory;
import java.util.function.ToLongFunction;

import javax.management.ObjectName;
import javax.management.StandardMBean;

import io.nnaudit.QueuedAuditLogger;
import io.nnaudit.ship.ShipStats;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.server.namenode.AuditLogger;

/**
 * A NameNode in a JVM of its own for {@code benchmarks/nn_compare.py}: MiniDFSCluster with no DataNodes, RPC
 * on 127.0.0.1, configured by an hdfs-site style file that selects the audit variant. Prints
 * {@code READY port=N http=M} (RPC and HTTP ports) and serves until the process is terminated (SIGTERM runs
 * the shutdown hooks, so nnaudit drains as on a real NameNode). Arguments: baseDir siteXml.
 *
 * <p>The shipper's figures are also served, read at each request, as the MBean {@value #SHIP_NOW} on the
 * NameNode's /jmx (all 0 when nnaudit does not ship, so that every variant answers the client's requests the same
 * way): the metrics2 source {@code NnauditLogger} has the same
 * figures, but /jmx serves those from a cache refreshed with the metrics system's period (10 s by default), too
 * late for the benchmark client, which reads them at the end of each timed window.
 */
public final class BenchNameNodeMain {
  /** The MBean with the shipper's figures read at each request. */
  static final String SHIP_NOW = "Hadoop:service=NameNode,name=NnauditShipNow";

  private BenchNameNodeMain() {
  }

  /** The shipper's figures now ({@link ShipStats}), for the benchmark client. */
  public interface ShipNowMBean {
    long getShippedRecords();

    long getShipLagRecords();

    long getShipLagMillis();

    long getShipSendErrors();
  }

  public static void main(String[] args) {
    try {
      serve(args);
    } catch (Throwable t) {
      // The cluster's threads would keep the JVM alive without a READY line: exit, so the harness sees it fail.
      t.printStackTrace();
      System.exit(1);
    }
  }

  private static void serve(String[] args) throws Exception {
    Configuration conf = new HdfsConfiguration();
    conf.addResource(new Path(new File(args[1]).getAbsolutePath()));
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, new File(args[0]).getAbsolutePath());
    conf.set(DFSConfigKeys.DFS_NAMENODE_HTTP_ADDRESS_KEY, "127.0.0.1:0");
    conf.setInt(DFSConfigKeys.DFS_NAMENODE_MIN_BLOCK_SIZE_KEY, 16); // NNThroughputBenchmark's block size
    MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf).numDataNodes(0).build();
    cluster.waitActive();
    QueuedAuditLogger shipping = null;
    for (AuditLogger l : cluster.getNamesystem().getAuditLoggers()) {
      if (l instanceof QueuedAuditLogger && ((QueuedAuditLogger) l).pipeline().shipStats() != null) {
        shipping = (QueuedAuditLogger) l;
      }
    }
    registerShipNow(shipping);
    System.out.println("READY port=" + cluster.getNameNodePort() + " http="
        + cluster.getNameNode().getHttpAddress().getPort());
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE); // serve until the process is terminated
  }

  /** A figure of the shipper's stats now; 0 without a shipper (nothing to ship); -1 once the pipeline has closed. */
  private static long read(QueuedAuditLogger logger, ToLongFunction<ShipStats> figure) {
    if (logger == null) {
      return 0;
    }
    ShipStats s = logger.pipeline().shipStats();
    return s == null ? -1 : figure.applyAsLong(s);
  }

  private static void registerShipNow(QueuedAuditLogger logger) throws Exception {
    ShipNowMBean now = new ShipNowMBean() {
      @Override
      public long getShippedRecords() {
        return read(logger, s -> s.shippedRecords);
      }

      @Override
      public long getShipLagRecords() {
        return read(logger, s -> s.lagRecords);
      }

      @Override
      public long getShipLagMillis() {
        return read(logger, s -> s.lagMillis);
      }

      @Override
      public long getShipSendErrors() {
        return read(logger, s -> s.sendErrors);
      }
    };
    ManagementFactory.getPlatformMBeanServer().registerMBean(new StandardMBean(now, ShipNowMBean.class),
        new ObjectName(SHIP_NOW));
  }
}
