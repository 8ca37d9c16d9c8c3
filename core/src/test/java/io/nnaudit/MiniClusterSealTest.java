package io.nnaudit;

import static io.nnaudit.AuditTestSupport.awaitTrue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.pipeline.AuditPipeline;
import io.nnaudit.seal.Seal;
import io.nnaudit.seal.SealKey;
import io.nnaudit.seal.SealKeyFixture;
import io.nnaudit.trail.TrailNames;
import io.nnaudit.verify.Verification;
import io.nnaudit.verify.VerifyReport;

/**
 * A NameNode (MiniDFSCluster, real RPC) sealing its audit file: files of 4 KB rotate many times and the oldest
 * are deleted (3 backups kept), the logger is re-initialized with changed settings halfway (its pipeline
 * replaced on the same file), and the NameNode stops. Then the trail is verified as an operator would, with
 * {@code java -cp <nnaudit's classes> io.nnaudit.verify.VerifyCommand verify --cert CERT DIR} in a JVM of its own
 * that has nothing else on its classpath: every record in the files is sealed and the chain holds across the
 * rotations, the deletions and the re-initialize. Before the stop, /jmx shows the seals written and the hash
 * of the latest seal, which is the last seal in the live digest, and the trail of the running NameNode is sealed
 * to its end within nnaudit.seal.interval.ms of its last record.
 */
class MiniClusterSealTest {
  /** The signing key of the NameNode's trail. */
  @RegisterExtension
  static final SealKeyFixture ec = new SealKeyFixture();

  @TempDir
  Path dir;

  @RegisterExtension
  final MiniClusterFixture nameNodes = new MiniClusterFixture();

  private static final int BACKUPS = 3;
  private static final Pattern VERIFIED = Pattern.compile("^verified: (\\d+) files, (\\d+) records, from ");

  @Test
  void aRotatedAndReinitializedTrailVerifiesWithNnauditsClassesAlone() throws Exception {
    Path auditDir = dir.resolve("audit");
    File audit = auditDir.resolve("nnaudit-audit.log").toFile();
    Configuration conf = MiniClusterSupport.sealedConf(dir.toFile(), audit, ec, "4k", BACKUPS, 7);
    conf.setLong(NnauditConfigKeys.SEAL_INTERVAL_MS_KEY, 500);
    MiniDFSCluster cluster = nameNodes.start(conf);
    QueuedAuditLogger logger;
    String anchor;
    try {
      logger = MiniClusterSupport.ourLogger(cluster);
      FileSystem fs = cluster.getFileSystem();
      operations(fs, "/before", 40); // some 220 records: a dozen rotations, the oldest files deleted
      assertTrue(logger.pipeline().awaitWritten(30_000));
      AuditPipeline first = logger.pipeline();

      // A re-initialize with a changed setting replaces the pipeline: the old one closes (and seals), the new
      // one opens the same file and goes on with the chain.
      Configuration changed = new Configuration(conf);
      changed.setInt(NnauditConfigKeys.WRITER_BATCH_MAX_EVENTS_KEY, 77);
      new QueuedAuditLogger().initialize(changed);
      assertNotSame(first, logger.pipeline(), "the re-initialize replaced the pipeline");

      operations(fs, "/after", 8); // two rotations or so: the re-initialize stays in the files kept
      assertTrue(logger.pipeline().awaitWritten(30_000));
      assertTrue(Files.exists(auditDir.resolve("nnaudit-audit.log." + BACKUPS)), "rotated past the backups kept");
      assertFalse(Files.exists(auditDir.resolve("nnaudit-audit.log." + (BACKUPS + 1))));
      assertFalse(Files.exists(auditDir.resolve("nnaudit-audit.log." + (BACKUPS + 1) + ".seals")));

      // With nothing more to write, the interval in time seals the last records while the NameNode runs.
      SealKey checking = ec.checkingKey();
      awaitTrue("the running NameNode's trail to be sealed to its end", 10_000, 100, () -> {
        VerifyReport r = Verification.report(checking, audit.toPath());
        assertEquals(null, r.tampering(), String.join("\n", r.lines()));
        return r.exitCode() == VerifyReport.VERIFIED;
      });

      JsonNode bean = sealMetricsInJmx(cluster, logger, audit);
      assertTrue(bean.get("SealsWritten").asLong() > 0, bean.toString());
      assertEquals(0, bean.get("SealFailures").asLong(), bean.toString());
      assertTrue(bean.get("MillisSinceLastSeal").asLong() >= 0, bean.toString());
      anchor = bean.get("tag.LatestSealHash").asText(); // what an operator records off the host
    } finally {
      cluster.shutdown();
    }
    assertTrue(logger.pipeline().close(30_000), "the pipeline closed, sealing what it wrote");

    ChildJvm verify = new ChildJvm(List.of("-Xmx256m"), nnauditClassesOnly(), "io.nnaudit.verify.VerifyCommand",
        "verify", "--cert", ec.certificate.toString(), auditDir.toString());
    String out = verify.awaitExit(120_000);
    System.out.println("VERIFY (exit " + verify.process.exitValue() + "):\n" + out);
    assertEquals(0, verify.process.exitValue(), out);
    Matcher m = VERIFIED.matcher(out);
    assertTrue(m.find(), out);
    int files = Integer.parseInt(m.group(1));
    long records = Long.parseLong(m.group(2));
    assertTrue(files > 1, out);
    assertEquals(BACKUPS + 1, files, "the live file and the backups kept: " + out);
    assertEquals(recordsInTrail(audit), records, "every record in the files is sealed: " + out);
    assertTrue(closeSealInABackup(audit), "the re-initialize's closing seal is in the verified trail");

    // The hash /jmx showed anchors the chain: the trail holds that seal; one it never held is a change.
    Verification.Run anchored = Verification.withCert(ec, "--anchor", anchor, auditDir.toString());
    assertEquals(0, anchored.code, anchored.toString());
    String notOurs = anchor.substring(1) + (anchor.charAt(0) == '0' ? '1' : '0');
    Verification.Run notHeld = Verification.withCert(ec, "--anchor", notOurs, auditDir.toString());
    assertEquals(1, notHeld.code, "a seal the trail does not hold: " + notHeld);
  }

  /** Creates, renames, lists, changes and deletes: each call a record (about 200 bytes). */
  private static void operations(FileSystem fs, String root, int rounds) throws Exception {
    for (int i = 0; i < rounds; i++) {
      org.apache.hadoop.fs.Path d = new org.apache.hadoop.fs.Path(root + "/d" + i);
      assertTrue(fs.mkdirs(d));
      try (FSDataOutputStream f = fs.create(new org.apache.hadoop.fs.Path(d, "empty"), (short) 1)) {
        // an empty file needs no DataNode
      }
      fs.setPermission(d, new FsPermission((short) 0750));
      fs.rename(new org.apache.hadoop.fs.Path(d, "empty"), new org.apache.hadoop.fs.Path(d, "renamed"));
      fs.listStatus(d);
      if (i % 2 == 0) {
        fs.delete(d, true);
      }
    }
  }

  /** The bean of our source in the NameNode's /jmx, once its LatestSealHash is the live digest's last seal. */
  private static JsonNode sealMetricsInJmx(MiniDFSCluster cluster, QueuedAuditLogger logger, File audit)
      throws Exception {
    InetSocketAddress http = cluster.getNameNode().getHttpAddress();
    URL url = new URL("http://" + http.getHostString() + ":" + http.getPort()
        + "/jmx?qry=Hadoop:service=NameNode,name=" + logger.pipeline().metricsSourceName());
    JsonNode[] seen = new JsonNode[1];
    String[] expected = new String[1];
    // /jmx shows a snapshot at most one metrics period old; the digest is read each time as well.
    awaitTrue("LatestSealHash in /jmx to be the hash of the live digest's last seal", 30_000, 200, () -> {
      try {
        JsonNode beans = fetch(url);
        assertEquals(1, beans.size(), beans.toString());
        seen[0] = beans.get(0);
        List<String> seals = Files.readAllLines(TrailNames.digest(audit.toPath()));
        expected[0] = Seal.parse(seals.get(seals.size() - 1)).hash();
      } catch (Exception e) {
        throw new AssertionError(e);
      }
      return seen[0].has("tag.LatestSealHash") && expected[0].equals(seen[0].get("tag.LatestSealHash").asText());
    });
    return seen[0];
  }

  private static JsonNode fetch(URL url) throws Exception {
    HttpURLConnection c = (HttpURLConnection) url.openConnection();
    try (InputStream in = c.getInputStream()) {
      return new ObjectMapper().readTree(in).get("beans");
    }
  }

  /** nnaudit's own compiled classes (target/classes), and nothing else: no Hadoop, no logging library. */
  private static String nnauditClassesOnly() {
    String cp = ChildJvm.testClassPath(e -> e.endsWith(File.separator + "classes"));
    assertFalse(cp.isEmpty() || cp.contains(File.pathSeparator), "one entry, nnaudit's classes: " + cp);
    assertTrue(new File(cp, "io/nnaudit/verify/VerifyCommand.class").isFile(), cp);
    return cp;
  }

  /** Whether a rotated file's digest holds a seal of kind close: one written when the pipeline was replaced. */
  private static boolean closeSealInABackup(File live) throws Exception {
    for (int i = 1; i <= BACKUPS; i++) {
      for (String line : Files.readAllLines(TrailNames.digest(new File(live.getPath() + "." + i).toPath()))) {
        if (Seal.parse(line).kind == Seal.Kind.CLOSE) {
          return true;
        }
      }
    }
    return false;
  }

  /** The records (lines) in the live file and its rotated files. */
  private static long recordsInTrail(File live) throws Exception {
    long n = 0;
    File[] files = live.getParentFile().listFiles((d, name) -> name.equals(live.getName())
        || name.matches(Pattern.quote(live.getName()) + "\\.\\d+"));
    for (File f : files) {
      for (byte b : Files.readAllBytes(f.toPath())) {
        if (b == '\n') {
          n++;
        }
      }
    }
    return n;
  }
}
