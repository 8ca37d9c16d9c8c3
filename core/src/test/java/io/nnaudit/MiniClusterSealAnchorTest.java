package io.nnaudit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.URL;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import javax.management.ObjectName;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.pipeline.AuditPipeline;
import io.nnaudit.seal.Seal;
import io.nnaudit.seal.SealKeyFixture;
import io.nnaudit.verify.Verification;
import io.nnaudit.verify.VerifyReport;

/**
 * The anchor a NameNode shows in its /jmx ({@code Hadoop:service=NameNode,name=NnauditSeal}) is the newest seal
 * of its trail, or the one before it while the newest is being written, however fast seals come: under a load
 * of 8 clients calling mkdirs, with files of 64 KB that rotate every few hundred records and a seal every 200
 * records, /jmx is read again and again, and each hash read is placed in the live digests at that moment. Each
 * is a seal the trail holds (verify --anchor exits 0 or 2, never 1). The metrics2 tag LatestSealHash is read in
 * the same requests and only printed: it comes from metrics2's JMX cache and may be a metrics period behind.
 * The bean goes with its pipeline: a re-initialize replaces it, a close removes it.
 */
class MiniClusterSealAnchorTest {
  /** The signing key of the NameNode's trail. */
  @RegisterExtension
  static final SealKeyFixture ec = new SealKeyFixture();

  @TempDir
  Path dir;

  @RegisterExtension
  final MiniClusterFixture nameNodes = new MiniClusterFixture();

  private static final int READS = 150;
  private static final long READ_PAUSE_MS = 20;

  @Test
  void theAnchorInJmxIsTheNewestSealOrTheOneBeforeItUnderLoad() throws Exception {
    Path auditDir = dir.resolve("audit");
    File audit = auditDir.resolve("nnaudit-audit.log").toFile();
    // every seal read stays in the trail: 10000 files kept
    Configuration conf = MiniClusterSupport.sealedConf(dir.toFile(), audit, ec, "64k", 10_000, 200);
    conf.setLong(NnauditConfigKeys.SEAL_INTERVAL_MS_KEY, 1000);
    MiniDFSCluster cluster = nameNodes.start(conf);
    QueuedAuditLogger logger;
    String beanName;
    Set<String> anchors = new LinkedHashSet<>();
    try {
      logger = MiniClusterSupport.ourLogger(cluster);
      beanName = logger.pipeline().sealAnchorName();
      assertEquals("NnauditSeal", beanName);
      InetSocketAddress http = cluster.getNameNode().getHttpAddress();
      String jmx = "http://" + http.getHostString() + ":" + http.getPort() + "/jmx";
      SealAnchorProbe.Channel live = new SealAnchorProbe.Channel("anchor", beanName, "LatestSealHash");
      SealAnchorProbe.Channel tag = new SealAnchorProbe.Channel("metrics2 tag",
          logger.pipeline().metricsSourceName(), "tag.LatestSealHash");
      SealAnchorProbe probe = new SealAnchorProbe(audit.toPath(), jmx, "Hadoop:service=NameNode,name=Nnaudit*",
          Arrays.asList(live, tag));

      List<SealAnchorProbe.Read> reads = new ArrayList<>();
      long firstFile;
      try (MkdirsLoad load = new MkdirsLoad(cluster.getURI(), 8, "/anchor").start()) {
        assertTrue(load.awaitAcked(2000, 120_000), "the load ran: " + load.ackedCount() + "; " + load.endings());
        firstFile = probe.newest().file;
        for (int i = 0; i < READS; i++) {
          reads.addAll(probe.read());
          Thread.sleep(READ_PAUSE_MS); // reads spread over the load, not a timing assertion
        }
      }
      long lastFile = probe.newest().file;
      assertTrue(lastFile - firstFile >= 3, "the files rotated while /jmx was read: file " + firstFile + " to "
          + lastFile);

      long behindOne = 0;
      for (SealAnchorProbe.Read r : reads) {
        if (r.channel != live) {
          continue;
        }
        assertNotNull(r.seal, "the trail holds the seal read: " + r);
        // The sealing thread publishes a seal's hash after writing its line, and the previous seal's before
        // writing the next line: at the moment of the read the newest seal, or the one before it.
        assertTrue(r.seal.number >= r.newestBefore.number - 1, "at most one seal behind: " + r);
        assertTrue(r.seal.number <= r.newestAfter.number, () -> "no seal the digests do not hold yet: " + r + "\n"
            + probe.describe());
        behindOne += r.seal.number < r.newestBefore.number ? 1 : 0;
        anchors.add(r.hash);
      }
      System.out.println("anchor reads: " + READS + ", one seal behind the newest: " + behindOne + ", seals "
          + reads.get(0).newestBefore.number + " to " + reads.get(reads.size() - 1).newestAfter.number + ", files "
          + firstFile + " to " + lastFile);
      System.out.println("metrics2 tag " + lagSummary(reads, tag));
      System.out.println("anchor bean " + lagSummary(reads, live));

      // Each hash read is a seal the running NameNode's trail holds (its tail may be unsealed for a moment).
      for (String hash : anchors) {
        Verification.Run run = Verification.withCert(ec, "--anchor", hash, auditDir.toString());
        assertTrue(run.code == VerifyReport.VERIFIED || run.code == VerifyReport.UNSEALED, "verify --anchor " + hash
            + ": " + run);
      }

      JsonNode bean = bean(jmx, beanName);
      assertEquals(audit.getPath(), bean.get("AuditFile").asText());
      assertTrue(bean.get("SealsWritten").asLong() > 0, bean.toString());
      assertEquals(0, bean.get("SealFailures").asLong(), bean.toString());
      assertTrue(bean.get("MillisSinceLastSeal").asLong() >= 0, bean.toString());
      long millis = bean.get("LatestSealMillis").asLong();
      assertEquals(Seal.formatTime(millis), bean.get("LatestSealTime").asText(), bean.toString());
      Seal shown = probe.lookup(bean.get("LatestSealHash").asText());
      assertNotNull(shown, bean.toString());
      probe.readAll(); // every seal written so far is known to the probe
      assertTrue(probe.sealsWrittenAt(millis).stream().anyMatch(s -> Math.abs(s.number - shown.number) <= 1),
          "the time shown is that of the hash's seal or one next to it: " + bean);
      // The metrics2 source gives the time of the seal its (perhaps older) snapshot names, so its age is known.
      JsonNode source = bean(jmx, logger.pipeline().metricsSourceName());
      Seal tagged = probe.lookup(source.get("tag.LatestSealHash").asText());
      assertNotNull(tagged, source.toString());
      long tagMillis = source.get("LatestSealMillis").asLong();
      assertTrue(probe.sealsWrittenAt(tagMillis).stream().anyMatch(s -> Math.abs(s.number - tagged.number) <= 1),
          "LatestSealMillis is the time of the tag's seal or one next to it: " + source);

      // A re-initialize that replaces the pipeline replaces the bean: the old pipeline closes, and removes its
      // bean, before the new one opens the file and registers its own.
      AuditPipeline first = logger.pipeline();
      Configuration changed = new Configuration(conf);
      changed.setInt(NnauditConfigKeys.WRITER_BATCH_MAX_EVENTS_KEY, 77);
      new QueuedAuditLogger().initialize(changed);
      assertNotSame(first, logger.pipeline(), "the re-initialize replaced the pipeline");
      assertEquals(beanName, logger.pipeline().sealAnchorName(), "the name the old pipeline left");
      assertTrue(registered(beanName));
      Seal after = probe.lookup(bean(jmx, beanName).get("LatestSealHash").asText());
      assertNotNull(after);
      assertEquals(probe.newest().number, after.number, "the new pipeline's bean shows the chain's newest seal");
    } finally {
      cluster.shutdown();
    }
    assertTrue(logger.pipeline().close(30_000));
    assertFalse(registered(beanName), "the closed pipeline's bean is gone");
  }

  private static String lagSummary(List<SealAnchorProbe.Read> reads, SealAnchorProbe.Channel c) {
    List<Long> seals = new ArrayList<>();
    List<Long> millis = new ArrayList<>();
    for (SealAnchorProbe.Read r : reads) {
      if (r.channel == c && r.seal != null) {
        seals.add(r.lagSeals());
        millis.add(r.lagMillis());
      }
    }
    seals.sort(null);
    millis.sort(null);
    return "lag behind the newest seal over " + seals.size() + " reads: median " + seals.get(seals.size() / 2)
        + " seals, max " + seals.get(seals.size() - 1) + "; median " + millis.get(millis.size() / 2) + " ms, max "
        + millis.get(millis.size() - 1) + " ms";
  }

  private static boolean registered(String name) throws Exception {
    return ManagementFactory.getPlatformMBeanServer().isRegistered(new ObjectName("Hadoop:service=NameNode,name="
        + name));
  }

  private static JsonNode bean(String jmx, String name) throws Exception {
    HttpURLConnection c = (HttpURLConnection) new URL(jmx + "?qry=Hadoop:service=NameNode,name=" + name)
        .openConnection();
    try (InputStream in = c.getInputStream()) {
      JsonNode beans = new ObjectMapper().readTree(in).get("beans");
      assertEquals(1, beans.size(), beans.toString());
      return beans.get(0);
    }
  }
}
