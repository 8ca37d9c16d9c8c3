package io.nnaudit;

import static io.nnaudit.AuditTestSupport.conf;
import static io.nnaudit.AuditTestSupport.logger;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Path;
import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.apache.log4j.Level;
import org.apache.log4j.LogManager;
import org.apache.log4j.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** dfs.namenode.audit.log.debug.cmdlist: listed commands are written only at FSNamesystem.audit DEBUG. */
class DebugCmdListTest {
  @TempDir
  Path dir;

  @Test
  void listedCommandsFollowTheStockAuditLoggersDebugLevel() throws Exception {
    File file = dir.resolve("audit.log").toFile();
    Configuration c = conf(file);
    c.set("dfs.namenode.audit.log.debug.cmdlist", "getfileinfo, listStatus");
    QueuedAuditLogger l = logger(c);
    Logger stock = LogManager.getLogger(MiniClusterSupport.STOCK_AUDIT_LOGGER);
    Level before = stock.getLevel();
    try {
      stock.setLevel(Level.INFO);
      l.logAuditEvent(true, "u", null, "getfileinfo", "/quiet", null, null, null, null, null);
      l.logAuditEvent(true, "u", null, "listStatus", "/quiet", null, null, null, null, null);
      l.logAuditEvent(true, "u", null, "mkdirs", "/kept", null, null, null, null, null);
      stock.setLevel(Level.DEBUG);
      l.logAuditEvent(true, "u", null, "getfileinfo", "/debug", null, null, null, null, null);
      assertTrue(l.pipeline().awaitWritten(30_000));
      List<String> records = TestFiles.operationRecords(file);
      assertEquals(2, records.size(), records.toString());
      assertTrue(records.get(0).contains("\tcmd=mkdirs\tsrc=/kept\t"));
      assertTrue(records.get(1).contains("\tcmd=getfileinfo\tsrc=/debug\t"));
      assertEquals(2, l.stats().accepted, "skipped commands are not events");
    } finally {
      stock.setLevel(before);
      l.pipeline().close(10_000);
    }
  }
}
