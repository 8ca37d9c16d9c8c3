package io.nnaudit.pipeline;

import java.lang.management.ManagementFactory;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.NotCompliantMBeanException;
import javax.management.ObjectName;
import javax.management.StandardMBean;

import org.apache.hadoop.metrics2.util.MBeans;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.nnaudit.seal.Seal;
import io.nnaudit.sink.file.RollingFileSink;

/**
 * The latest seal of one sealed audit file as a plain MBean, {@code Hadoop:service=NameNode,name=NnauditSeal}
 * ({@code NnauditSeal-2} and so on for a second pipeline in the JVM), whose getters read the sealer at the
 * moment {@code /jmx} asks: the anchor to record off the host.
 *
 * <p>Why beside the metrics2 source, which has a {@code LatestSealHash} tag too: metrics2 answers JMX from a
 * cache of each source's last snapshot, taken again only by the first read after it has aged one metrics period
 * plus 1 ms ({@code MetricsSourceAdapter}'s jmxCacheTTL). A hash read there is up to a whole period older than
 * the newest seal, which under load is many seals and files. This bean keeps no copy.
 *
 * <p>Design note.
 * <ul>
 * <li>What blocks: nothing. A getter reads the sealer's volatile fields and the clock: no lock, no I/O. JMX
 * calls it on the caller's thread (the NameNode's HTTP threads serving {@code /jmx}, a JMX connector), as often
 * as they ask.</li>
 * <li>What drops: nothing is kept, so nothing goes stale. Each attribute is one read: the hash and the time are
 * two, and when a seal is written between them they belong to consecutive seals (the seal line with that hash
 * holds its exact time).</li>
 * <li>Shut-down order: the pipeline registers it once its writer has started, beside the metrics source, and
 * unregisters it with the metrics source once the writer has finished (close, a re-initialize that replaces the
 * pipeline, the shutdown hook). A replacing pipeline opens after the one it replaces has closed, and takes the
 * name it left.</li>
 * <li>Who owns what: the fields are final, set by the thread that opens the pipeline; the values read belong to
 * the sealing thread, which publishes them as volatiles.</li>
 * </ul>
 */
final class SealAnchor implements SealAnchorMBean {
  private static final Logger LOG = LoggerFactory.getLogger(SealAnchor.class);
  static final String SERVICE = "NameNode";
  static final String BASE_NAME = "NnauditSeal";

  private final RollingFileSink sink;
  private final String file;

  private SealAnchor(RollingFileSink sink, String file) {
    this.sink = sink;
    this.file = file;
  }

  /**
   * Registers the bean of a sealed file sink under the first free name, and returns that name; null when the
   * sink does not seal, or when no name could be registered (logged: the anchor is then read from the metrics
   * source alone). Never fails the pipeline.
   */
  static ObjectName register(RollingFileSink sink, String file) {
    if (sink.sealsWritten() < 0) {
      return null;
    }
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    synchronized (SealAnchor.class) {
      try {
        StandardMBean bean = new StandardMBean(new SealAnchor(sink, file), SealAnchorMBean.class);
        for (int i = 1; i < 1000; i++) {
          String name = i == 1 ? BASE_NAME : BASE_NAME + "-" + i;
          if (!server.isRegistered(new ObjectName("Hadoop:service=" + SERVICE + ",name=" + name))) {
            ObjectName registered = MBeans.register(SERVICE, name, bean);
            if (registered != null) {
              return registered;
            }
          }
        }
      } catch (MalformedObjectNameException | NotCompliantMBeanException | RuntimeException e) {
        LOG.warn("nnaudit: could not register the seal anchor bean for {}", file, e);
        return null;
      }
    }
    LOG.warn("nnaudit: no free name for the seal anchor bean of {}; read LatestSealHash from the metrics source",
        file);
    return null;
  }

  static void unregister(ObjectName name) {
    try {
      MBeans.unregister(name);
    } catch (RuntimeException e) {
      LOG.debug("nnaudit: unregistering {} failed", name, e);
    }
  }

  @Override
  public String getAuditFile() {
    return file;
  }

  @Override
  public String getLatestSealHash() {
    String h = sink.latestSealHash();
    return h == null ? "" : h;
  }

  @Override
  public String getLatestSealTime() {
    long t = sink.lastSealMillis();
    return t <= 0 ? "" : Seal.formatTime(t);
  }

  @Override
  public long getLatestSealMillis() {
    return Math.max(0, sink.lastSealMillis());
  }

  @Override
  public long getMillisSinceLastSeal() {
    long t = sink.lastSealMillis();
    return t <= 0 ? -1 : Math.max(0, System.currentTimeMillis() - t);
  }

  @Override
  public long getSealsWritten() {
    return sink.sealsWritten();
  }

  @Override
  public long getSealFailures() {
    return sink.sealFailures();
  }
}
