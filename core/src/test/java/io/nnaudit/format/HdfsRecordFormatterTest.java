package io.nnaudit.format;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.ZoneId;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.ipc.CallerContext;
import org.junit.jupiter.api.Test;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.event.AuditEvent;
import io.nnaudit.settings.NnauditSettings;

/** Expected lines written by hand from the stock FSNamesystemAuditLogger source (Hadoop 3.4). */
class HdfsRecordFormatterTest {
  private static final long T = 1795340252947L; // 2026-11-22 09:37:32,947 UTC

  private static Configuration conf() {
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.FILE_PATH_KEY, "/tmp/nnaudit-formatter-test.log");
    return c;
  }

  private static String record(Configuration c, AuditEvent e) {
    RecordBuffer sb = new RecordBuffer();
    new HdfsRecordFormatter(NnauditSettings.fromConf(c).formatOptions(), new Log4jTimestamp(ZoneId.of("UTC")))
        .appendRecord(sb, e);
    return sb.toString();
  }

  private static InetAddress ip(int a, int b, int c, int d) throws Exception {
    return InetAddress.getByAddress(new byte[] {(byte) a, (byte) b, (byte) c, (byte) d});
  }

  private static AuditEvent event(boolean allowed, String ugi, InetAddress ip, String cmd, String src, String dst,
      boolean stat, String proto, String trackingId, CallerContext ctx) {
    return new AuditEvent(T, allowed, ugi, ip, cmd, src, dst, stat, stat ? "root" : null,
        stat ? "supergroup" : null, stat ? new FsPermission((short) 0755) : null, trackingId, proto, ctx);
  }

  @Test
  void mkdirsWithPermAndPrefix() throws Exception {
    AuditEvent e = event(true, "root (auth:SIMPLE)", ip(127, 0, 0, 1), "mkdirs", "/a/b", null, true, "rpc", null,
        null);
    assertEquals("2026-11-22 09:37:32,947 INFO FSNamesystem.audit: allowed=true\tugi=root (auth:SIMPLE)"
        + "\tip=/127.0.0.1\tcmd=mkdirs\tsrc=/a/b\tdst=null\tperm=root:supergroup:rwxr-xr-x\tproto=rpc\n",
        record(conf(), e));
  }

  @Test
  void nullFieldsAndNoPrefix() {
    Configuration c = conf();
    c.set(NnauditConfigKeys.RECORD_PREFIX_KEY, "none");
    AuditEvent e = new AuditEvent(T, false, null, null, null, null, null, false, null, null, null, null, null,
        null);
    assertEquals("allowed=false\tugi=null\tip=null\tcmd=null\tsrc=null\tdst=null\tperm=null\tproto=null\n",
        record(c, e));
  }

  @Test
  void statWithNullOwnerPrintsNullLikeTheStockLogger() {
    Configuration c = conf();
    c.set(NnauditConfigKeys.RECORD_PREFIX_KEY, "none");
    AuditEvent e = new AuditEvent(T, true, "u", null, "open", "/f", null, true, null, null,
        new FsPermission((short) 01777), null, "rpc", null);
    assertEquals("allowed=true\tugi=u\tip=null\tcmd=open\tsrc=/f\tdst=null\tperm=null:null:rwxrwxrwt\tproto=rpc\n",
        record(c, e));
  }

  @Test
  void srcAndDstAreJavaEscaped() throws Exception {
    Configuration c = conf();
    c.set(NnauditConfigKeys.RECORD_PREFIX_KEY, "none");
    AuditEvent e = event(true, "bob", ip(10, 1, 2, 3), "rename", "/tab\there/new\nline", "/caf\u00e9/\"q\"\\",
        false, "rpc", null, null);
    assertEquals("allowed=true\tugi=bob\tip=/10.1.2.3\tcmd=rename\tsrc=/tab\\there/new\\nline"
        + "\tdst=/caf\\u00E9/\\\"q\\\"\\\\\tperm=null\tproto=rpc\n", record(c, e));
  }

  @Test
  void controlCharactersInUgiAndCmdCannotForgeARecord() {
    Configuration c = conf();
    c.set(NnauditConfigKeys.RECORD_PREFIX_KEY, "none");
    AuditEvent e = event(true, "evil\nallowed=true\tugi=root", null, "cmd\r", "/x", null, false, "rpc", null,
        null);
    assertEquals("allowed=true\tugi=evil\\nallowed=true\\tugi=root\tip=null\tcmd=cmd\\r\tsrc=/x\tdst=null"
        + "\tperm=null\tproto=rpc\n", record(c, e));
  }

  @Test
  void callerContextEscapedTruncatedAndSigned() {
    Configuration c = conf();
    c.set(NnauditConfigKeys.RECORD_PREFIX_KEY, "none");
    c.setBoolean("hadoop.caller.context.enabled", true);
    c.setInt("hadoop.caller.context.max.size", 10);
    c.setInt("hadoop.caller.context.signature.max.size", 4);
    // Escaped first ("a\\tb" is 4 chars), then cut to 10 characters, exactly as the stock logger does.
    CallerContext ctx = new CallerContext.Builder("a\tbcdefghijklmn")
        .setSignature("sig".getBytes(StandardCharsets.UTF_8)).build();
    AuditEvent e = event(true, "u", null, "open", "/f", null, false, "rpc", null, ctx);
    assertEquals("allowed=true\tugi=u\tip=null\tcmd=open\tsrc=/f\tdst=null\tperm=null\tproto=rpc"
        + "\tcallerContext=a\\tbcdefgh:sig\n", record(c, e));

    // A signature longer than the limit is left out; an empty one too.
    CallerContext longSig = new CallerContext.Builder("job_1")
        .setSignature("toolong".getBytes(StandardCharsets.UTF_8)).build();
    assertEquals("allowed=true\tugi=u\tip=null\tcmd=open\tsrc=/f\tdst=null\tperm=null\tproto=webhdfs"
        + "\tcallerContext=job_1\n",
        record(c, event(true, "u", null, "open", "/f", null, false, "webhdfs", null, longSig)));
  }

  @Test
  void callerContextOmittedWhenDisabled() {
    Configuration c = conf();
    c.set(NnauditConfigKeys.RECORD_PREFIX_KEY, "none");
    CallerContext ctx = new CallerContext.Builder("job_1").build();
    assertEquals("allowed=true\tugi=u\tip=null\tcmd=open\tsrc=/f\tdst=null\tperm=null\tproto=rpc\n",
        record(c, event(true, "u", null, "open", "/f", null, false, "rpc", null, ctx)));
  }

  @Test
  void trackingIdBeforeProtoWhenEnabled() {
    Configuration c = conf();
    c.set(NnauditConfigKeys.RECORD_PREFIX_KEY, "none");
    c.setBoolean("dfs.namenode.audit.log.token.tracking.id", true);
    assertEquals("allowed=true\tugi=u\tip=null\tcmd=open\tsrc=/f\tdst=null\tperm=null\ttrackingId=abc123"
        + "\tproto=rpc\n", record(c, event(true, "u", null, "open", "/f", null, false, "rpc", "abc123", null)));
    assertEquals("allowed=true\tugi=u\tip=null\tcmd=open\tsrc=/f\tdst=null\tperm=null\ttrackingId=null"
        + "\tproto=rpc\n", record(c, event(true, "u", null, "open", "/f", null, false, "rpc", null, null)));
  }

  @Test
  void dropRecordIsWarnAndNotAnOperation() {
    RecordBuffer sb = new RecordBuffer();
    new HdfsRecordFormatter(NnauditSettings.fromConf(conf()).formatOptions(),
        new Log4jTimestamp(ZoneId.of("UTC")))
        .appendDropRecord(sb, T, new DropReport(12, T - 2946, T - 47, 40));
    assertEquals("2026-11-22 09:37:32,947 WARN FSNamesystem.audit: nnaudit=dropped\tcount=12"
        + "\tfrom=2026-11-22 09:37:30,001\tto=2026-11-22 09:37:32,900\ttotal=40\n", sb.toString());
  }
}
