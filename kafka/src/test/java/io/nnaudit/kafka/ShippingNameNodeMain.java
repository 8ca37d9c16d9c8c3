package io.nnaudit.kafka;

import java.io.File;
import java.nio.file.Path;
import java.nio.file.Paths;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.security.alias.CredentialProvider;
import org.apache.hadoop.security.alias.CredentialProviderFactory;

import io.nnaudit.QueuedAuditLogger;
import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.seal.SealKeys;
import io.nnaudit.ship.ShipStats;

/**
 * Run in a JVM of its own ({@link ShippingNameNodeProcess}): a NameNode (MiniDFSCluster, real RPC) auditing with
 * nnaudit to {@code auditDir/audit.log} and shipping it to a broker, serving until it is stopped (SIGTERM) or
 * killed. Arguments: baseDir auditDir bootstrapServers topic format, where format is {@code true} for the first
 * start and {@code false} for a restart on the same name directory (the same audit file and checkpoint); then
 * optionally the value of {@code nnaudit.file.compress} ({@code gzip}: rotated files are compressed as the shipper
 * finishes them), the source ({@code NS/NN}, else {@code ns1/nn1}: the records' identity survives a restart), and a
 * PKCS12 keystore made by {@link SealKeys#ec} with a seal interval in records, to seal the file (its password in
 * a JCEKS credential provider, a seal at least every 300 ms), the value of {@code nnaudit.kafka.headers}, and that
 * of {@code nnaudit.kafka.record.lines}.
 *
 * <p>Prints {@code READY port=N}, then {@code STATS <ShipStats fields>} every 100 ms, so the test can tell what the
 * shipper had done when it stopped or killed this JVM.
 */
public final class ShippingNameNodeMain {
  static final String SOURCE = "ns1/nn1";
  private static final long STATS_INTERVAL_MS = 100;

  private ShippingNameNodeMain() {
  }

  public static void main(String[] args) throws Exception {
    Configuration conf = ShippingCluster.conf(new File(args[0]), new File(args[1]), false, args[2], args[3]);
    String source = args.length > 6 ? args[6] : SOURCE;
    conf.set(NnauditConfigKeys.KAFKA_NAMESERVICE_ID_KEY, source.substring(0, source.indexOf('/')));
    conf.set(NnauditConfigKeys.KAFKA_NAMENODE_ID_KEY, source.substring(source.indexOf('/') + 1));
    conf.setInt(DFSConfigKeys.DFS_NAMENODE_HANDLER_COUNT_KEY, 16);
    if (args.length > 5) {
      conf.set(NnauditConfigKeys.FILE_COMPRESS_KEY, args[5]);
    }
    if (args.length > 8) {
      seal(conf, Paths.get(args[0]), args[7], Integer.parseInt(args[8]));
    }
    if (args.length > 9) {
      conf.set(NnauditConfigKeys.KAFKA_HEADERS_KEY, args[9]);
    }
    if (args.length > 10) {
      conf.set(NnauditConfigKeys.KAFKA_RECORD_LINES_KEY, args[10]);
    }
    MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf).numDataNodes(0)
        .format(Boolean.parseBoolean(args[4])).build();
    cluster.waitActive();
    System.out.println("READY port=" + cluster.getNameNodePort());
    System.out.flush();
    QueuedAuditLogger logger = ShippingCluster.logger(cluster.getNamesystem());
    while (true) { // until the test stops or kills this JVM
      ShipStats s = logger.pipeline().shipStats();
      if (s != null) {
        System.out.println("STATS t=" + System.currentTimeMillis() + " shipped=" + s.shippedRecords + " lagRecords="
            + s.lagRecords + " lagBytes=" + s.lagBytes + " filesWaiting=" + s.filesWaiting + " sendErrors="
            + s.sendErrors);
        System.out.flush();
      }
      Thread.sleep(STATS_INTERVAL_MS); // the interval of a report, not a wait for anything
    }
  }

  /** Seals the audit file with the key in {@code keystore}, a seal every {@code interval} records or 300 ms. */
  private static void seal(Configuration conf, Path baseDir, String keystore, int interval) throws Exception {
    Path creds = baseDir.resolve("seal-creds-" + System.nanoTime() + ".jceks");
    conf.set(CredentialProviderFactory.CREDENTIAL_PROVIDER_PATH, "jceks://file" + creds.toAbsolutePath());
    CredentialProvider p = CredentialProviderFactory.getProviders(conf).get(0);
    p.createCredentialEntry(NnauditConfigKeys.SEAL_KEYSTORE_PASSWORD_KEY, SealKeys.PASSWORD.toCharArray());
    p.flush();
    conf.setBoolean(NnauditConfigKeys.SEAL_ENABLED_KEY, true);
    conf.set(NnauditConfigKeys.SEAL_KEYSTORE_PATH_KEY, keystore);
    conf.set(NnauditConfigKeys.SEAL_KEYSTORE_TYPE_KEY, "PKCS12");
    conf.setInt(NnauditConfigKeys.SEAL_INTERVAL_RECORDS_KEY, interval);
    conf.setLong(NnauditConfigKeys.SEAL_INTERVAL_MS_KEY, 300);
  }
}
