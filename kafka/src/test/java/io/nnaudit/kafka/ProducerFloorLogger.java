package io.nnaudit.kafka;

import java.io.File;
import java.net.InetAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.hdfs.security.token.delegation.DelegationTokenSecretManager;
import org.apache.hadoop.hdfs.server.namenode.HdfsAuditLogger;
import org.apache.hadoop.ipc.CallerContext;
import org.apache.hadoop.security.UserGroupInformation;

/**
 * The floor of shipping inside a NameNode, the {@code producer-floor} variant of
 * {@code benchmarks/nn_compare.py}: a logger that does nothing with a call but count it, and a thread that, every
 * poll interval of the shipper, hands the Kafka producer one stock audit line for each call counted since, with
 * the shipper's settings, key and headers ({@link AloneProducer}, as {@link ShipRate}'s {@code producer-steady}).
 * What this adds to the NameNode's CPU per operation over the do-nothing logger is what the Kafka client costs
 * there at the NameNode's own pace, before any work of the shipper's (reading the file, cutting lines, the
 * checkpoints, the acknowledgements' bookkeeping).
 *
 * <p>Design note. Handlers only add to a {@link LongAdder}; nothing blocks them and nothing is dropped. The
 * sending thread (a daemon named like the shipper's, so the harness counts its CPU as the shipper's) owns the
 * producer and the count sent; it ends with the NameNode's process, the producer unflushed: a benchmark run's
 * figures are taken before the NameNode stops.
 */
public class ProducerFloorLogger extends HdfsAuditLogger {
  private final LongAdder calls = new LongAdder();

  @Override
  public void initialize(Configuration conf) {
    ShipperSettings settings = ShipperSettings.fromConf(conf,
        new File(System.getProperty("java.io.tmpdir"), "producer-floor.log").getAbsoluteFile());
    AloneProducer producer = new AloneProducer(settings);
    byte[][] lines = new byte[10_000][]; // made once: the shipper reads its lines, it does not make them
    for (int i = 0; i < lines.length; i++) {
      lines[i] = ShipRate.line(i);
    }
    Thread sender = new Thread(() -> {
      long sent = 0;
      try {
        while (true) {
          TimeUnit.MILLISECONDS.sleep(settings.pollIntervalMs); // as often as the shipper looks at its file
          for (long due = calls.sum(); sent < due; sent++) {
            producer.send(lines[(int) (sent % lines.length)]);
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "nnaudit-kafka-floor");
    sender.setDaemon(true);
    sender.start();
  }

  @Override
  public void logAuditEvent(boolean succeeded, String userName, InetAddress addr, String cmd, String src,
      String dst, FileStatus stat, CallerContext callerContext, UserGroupInformation ugi,
      DelegationTokenSecretManager dtSecretManager) {
    calls.increment();
  }

  @Override
  public void logAuditEvent(boolean succeeded, String userName, InetAddress addr, String cmd, String src,
      String dst, FileStatus stat, UserGroupInformation ugi, DelegationTokenSecretManager dtSecretManager) {
    calls.increment();
  }
}
