package io.nnaudit.kafka;

import java.io.File;

import io.nnaudit.QueuedAuditLogger;
import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.ship.ShipStats;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.MiniDFSCluster;

/**
 * Run in a JVM of its own ({@link ShippingNameNodeProcess}) by {@link ShipperCrashTest}: a NameNode (MiniDFSCluster, real RPC) auditing with nnaudit
 * to {@code auditDir/audit.log} and shipping it to a broker, serving until it is killed. Arguments: baseDir auditDir
 * bootstrapServers topic format, where format is {@code true} for the first start and {@code false} for a restart
 * on the same name directory (the same audit file and checkpoint), and optionally a sixth, the value of
 * {@code nnaudit.file.compress} ({@code gzip}: rotated files are compressed as the shipper finishes them). The source is fixed ({@code ns1/nn1}), so the
 * records' identity survives the restart.
 *
 * <p>Prints {@code READY port=N}, then {@code STATS <ShipStats fields>} every 100 ms, so the test can tell what the
 * shipper had done when it killed this JVM.
 */
public final class ShippingNameNodeMain {
  static final String SOURCE = "ns1/nn1";
  private static final long STATS_INTERVAL_MS = 100;

  private ShippingNameNodeMain() {
  }

  public static void main(String[] args) throws Exception {
    Configuration conf = ShippingCluster.conf(new File(args[0]), new File(args[1]), false, args[2], args[3]);
    conf.set(NnauditConfigKeys.KAFKA_NAMESERVICE_ID_KEY, "ns1");
    conf.set(NnauditConfigKeys.KAFKA_NAMENODE_ID_KEY, "nn1");
    conf.setInt(DFSConfigKeys.DFS_NAMENODE_HANDLER_COUNT_KEY, 16);
    if (args.length > 5) {
      conf.set(NnauditConfigKeys.FILE_COMPRESS_KEY, args[5]);
    }
    MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf).numDataNodes(0)
        .format(Boolean.parseBoolean(args[4])).build();
    cluster.waitActive();
    System.out.println("READY port=" + cluster.getNameNodePort());
    System.out.flush();
    QueuedAuditLogger logger = ShippingCluster.logger(cluster.getNamesystem());
    while (true) { // until the test kills this JVM
      ShipStats s = logger.pipeline().shipStats();
      if (s != null) {
        System.out.println("STATS t=" + System.currentTimeMillis() + " shipped=" + s.shippedRecords + " lagRecords=" + s.lagRecords + " lagBytes="
            + s.lagBytes + " filesWaiting=" + s.filesWaiting + " sendErrors=" + s.sendErrors);
        System.out.flush();
      }
      Thread.sleep(STATS_INTERVAL_MS); // the interval of a report, not a wait for anything
    }
  }
}
