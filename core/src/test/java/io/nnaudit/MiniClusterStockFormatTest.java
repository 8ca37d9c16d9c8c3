package io.nnaudit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.PrivilegedExceptionAction;
import java.text.SimpleDateFormat;
import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.ipc.CallerContext;
import org.apache.hadoop.security.AccessControlException;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.log4j.RollingFileAppender;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The headline compatibility claim: with {@code dfs.namenode.audit.loggers=default,nnaudit}, a scripted set of
 * real RPC and WebHDFS operations gives an nnaudit file equal to the stock hdfs-audit.log line for line,
 * timestamps aside.
 */
class MiniClusterStockFormatTest {
  @TempDir
  Path dir;

  @RegisterExtension
  final MiniClusterFixture nameNodes = new MiniClusterFixture();

  @Test
  void ourFileEqualsTheStockAuditLogExceptForTimestamps() throws Exception {
    File ours = dir.resolve("nnaudit.log").toFile();
    File stock = dir.resolve("hdfs-audit.log").toFile();
    Configuration conf = MiniClusterSupport.conf(dir.toFile(), ours, "default," + QueuedAuditLogger.class.getName());
    conf.setBoolean("hadoop.caller.context.enabled", true);
    conf.setInt("hadoop.caller.context.max.size", 128);
    conf.setBoolean("dfs.namenode.audit.log.token.tracking.id", true);
    conf.set("dfs.namenode.audit.log.debug.cmdlist", "datanodeReport");
    conf.setBoolean("dfs.permissions.enabled", true);
    RollingFileAppender stockAppender = MiniClusterSupport.stockAuditLogTo(stock);
    MiniDFSCluster cluster = nameNodes.start(conf, 1);
    QueuedAuditLogger logger;
    int ops;
    logger = MiniClusterSupport.ourLogger(cluster);
    ops = runScript(cluster);
    cluster.shutdown();
    assertTrue(logger.pipeline().close(30_000));
    stockAppender.close();

    List<String> stockLines = TestFiles.lines(stock);
    List<String> ourLines = TestFiles.lines(ours);
    System.out.println("nnaudit records:\n" + String.join("\n", ourLines));
    assertTrue(stockLines.size() >= ops, "the stock log saw the script: " + stockLines.size() + " < " + ops);
    assertEquals(stockLines.size(), ourLines.size(), "same number of records");
    SimpleDateFormat ts = new SimpleDateFormat("yyyy-MM-dd HH:mm:ss,SSS");
    for (int i = 0; i < stockLines.size(); i++) {
      String s = stockLines.get(i);
      String o = ourLines.get(i);
      assertEquals(s.substring(23), o.substring(23), "record " + i + " differs beyond the timestamp");
      long stockTime = ts.parse(s.substring(0, 23)).getTime();
      long ourTime = ts.parse(o.substring(0, 23)).getTime();
      assertTrue(ourTime >= stockTime, "our time is that of the call, taken after the stock logger's: " + i);
    }
    String all = String.join("\n", ourLines) + "\n";
    assertTrue(!all.contains("cmd=datanodeReport"), "debug cmdlist commands are left out at INFO");
    for (String expected : new String[] {
        "\tcmd=mkdirs\tsrc=/script\tdst=null\tperm=",
        "\tcmd=rename\tsrc=/script/a\\tb\tdst=/script/caf\\u00E9 \\u65E5\\u672C\tperm=",
        "\tcmd=create\tsrc=/script/new\\nline\tdst=null\tperm=",
        "allowed=false\tugi=mallory (auth:SIMPLE)\tip=/127.0.0.1\tcmd=setOwner\tsrc=/script/owned\tdst=null"
            + "\tperm=null\ttrackingId=null\tproto=rpc",
        "\tproto=webhdfs",
        "\tcallerContext=probeCtx:sig",
        "\tcallerContext=" + "long".repeat(32) + ":sig\n",
        "\tperm=null\ttrackingId=null\tproto=rpc",
        "\tcmd=listStatus\tsrc=/script\t",
        "\tcmd=getfileinfo\tsrc=/script/owned\t",
        "\tcmd=setPermission\tsrc=/script/owned\tdst=null\tperm=",
        "\tcmd=open\tsrc=/script/owned\t",
        "\tcmd=delete\tsrc=/script/caf\\u00E9 \\u65E5\\u672C\t"}) {
      assertTrue(all.contains(expected), "missing " + expected + " in\n" + all);
    }
  }

  /** The scripted operations; returns how many audited calls it made at least. */
  private static int runScript(MiniDFSCluster cluster) throws Exception {
    DistributedFileSystem fs = cluster.getFileSystem();
    int ops = 0;
    org.apache.hadoop.fs.Path base = new org.apache.hadoop.fs.Path("/script");
    fs.mkdirs(base);
    ops++;
    org.apache.hadoop.fs.Path owned = new org.apache.hadoop.fs.Path(base, "owned");
    try (FSDataOutputStream out = fs.create(owned)) {
      out.write("hello".getBytes(StandardCharsets.UTF_8));
    }
    ops++;
    fs.setPermission(owned, new FsPermission((short) 0640));
    fs.setOwner(owned, "alice", "staff");
    fs.getFileStatus(owned);
    fs.listStatus(base);
    fs.open(owned).close();
    ops += 5;

    org.apache.hadoop.fs.Path tab = new org.apache.hadoop.fs.Path(base, "a\tb");
    org.apache.hadoop.fs.Path nonAscii = new org.apache.hadoop.fs.Path(base, "café 日本");
    fs.create(tab).close();
    fs.rename(tab, nonAscii);
    fs.create(new org.apache.hadoop.fs.Path(base, "new\nline")).close();
    ops += 3;

    // Denied: only the superuser may change an owner.
    UserGroupInformation mallory = UserGroupInformation.createUserForTesting("mallory", new String[] {"users"});
    assertThrows(AccessControlException.class, () -> mallory.doAs((PrivilegedExceptionAction<Void>) () -> {
      FileSystem mfs = FileSystem.newInstance(cluster.getURI(), cluster.getConfiguration(0));
      try {
        mfs.setOwner(owned, "mallory", "users");
      } finally {
        mfs.close();
      }
      return null;
    }));
    ops++;

    // A caller context with a signature travels in the RPC header.
    CallerContext.setCurrent(new CallerContext.Builder("probeCtx")
        .setSignature("sig".getBytes(StandardCharsets.UTF_8)).build());
    try {
      fs.getFileStatus(base);
      // A context longer than hadoop.caller.context.max.size (128) is cut to it.
      CallerContext.setCurrent(new CallerContext.Builder("long".repeat(100))
          .setSignature("sig".getBytes(StandardCharsets.UTF_8)).build());
      fs.getFileStatus(base);
      ops++;
    } finally {
      CallerContext.setCurrent(null);
    }
    ops++;

    // One WebHDFS call.
    URI web = URI.create("webhdfs://" + cluster.getNameNode().getHttpAddress().getHostString() + ":"
        + cluster.getNameNode().getHttpAddress().getPort());
    try (FileSystem webFs = FileSystem.newInstance(web, cluster.getConfiguration(0))) {
      webFs.getFileStatus(owned);
    }
    ops++;

    fs.delete(nonAscii, false);
    ops++;
    return ops;
  }
}
