package io.nnaudit;

import static io.nnaudit.AuditTestSupport.awaitTrue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.URL;
import java.nio.file.Path;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.settings.QueueFullPolicy;

/** Our bean in the NameNode's own /jmx, over HTTP, with counts that match the operations performed. */
class MiniClusterJmxTest {
  @TempDir
  Path dir;

  @RegisterExtension
  final MiniClusterFixture nameNodes = new MiniClusterFixture();

  @Test
  void theNameNodeJmxShowsOurCounts() throws Exception {
    File audit = dir.resolve("jmx.log").toFile();
    Configuration conf = MiniClusterSupport.conf(dir.toFile(), audit, QueuedAuditLogger.class.getName());
    MiniDFSCluster cluster = nameNodes.start(conf);
    QueuedAuditLogger logger = MiniClusterSupport.ourLogger(cluster);
    long before = logger.stats().accepted;
    FileSystem fs = cluster.getFileSystem();
    int ops = 25;
    for (int i = 0; i < ops; i++) {
      fs.mkdirs(new org.apache.hadoop.fs.Path("/jmx/d" + i));
    }
    assertTrue(logger.pipeline().awaitWritten(30_000));
    long records = TestFiles.operationRecords(audit).size();

    InetSocketAddress http = cluster.getNameNode().getHttpAddress();
    URL url = new URL("http://" + http.getHostString() + ":" + http.getPort()
        + "/jmx?qry=Hadoop:service=NameNode,name=" + logger.pipeline().metricsSourceName());
    // /jmx shows a snapshot that is at most one metrics period (1 s in these tests) old.
    JsonNode[] seen = new JsonNode[1];
    awaitTrue("EventsAccepted in /jmx", 20_000, 200, () -> {
      JsonNode beans;
      try {
        beans = fetch(url);
      } catch (Exception e) {
        throw new AssertionError(e);
      }
      assertEquals(1, beans.size(), beans.toString());
      seen[0] = beans.get(0);
      return seen[0].get("EventsAccepted").asLong() == before + ops;
    });
    JsonNode bean = seen[0];
    assertEquals(audit.getPath(), bean.get("tag.AuditFile").asText());
    assertEquals("BLOCK", bean.get("tag.QueueFullPolicy").asText());
    long accepted = bean.get("EventsAccepted").asLong();
    assertEquals(before + ops, accepted, bean.toString());
    assertEquals(records, accepted, "every accepted event is a record in the file");
    assertEquals(accepted, bean.get("EventsWritten").asLong());
    assertEquals(0, bean.get("EventsDropped").asLong());
    assertEquals(160, bean.get("QueueCapacity").asInt(), "16 slots for each of 10 handlers");
    assertTrue(bean.get("BatchSizeNumOps").asLong() >= 1);
    assertTrue(bean.has("WriteMicrosAvgTime"), bean.toString());
  }

  private static JsonNode fetch(URL url) throws Exception {
    HttpURLConnection c = (HttpURLConnection) url.openConnection();
    try (InputStream in = c.getInputStream()) {
      return new ObjectMapper().readTree(in).get("beans");
    }
  }
}
