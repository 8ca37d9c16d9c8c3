package io.nnaudit.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Path;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.config.NnauditConfigKeys;

class NnauditSettingsTest {
  @TempDir
  Path dir;

  private Configuration conf() {
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.FILE_PATH_KEY, dir.resolve("audit.log").toString());
    return c;
  }

  /** The message names the key, repeats the value and says what is allowed. */
  private void assertRejected(String key, String value, String allowedFragment) {
    Configuration c = conf();
    c.set(key, value);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> NnauditSettings.fromConf(c));
    String m = e.getMessage();
    assertTrue(m.contains(key), m);
    assertTrue(m.contains("'" + value.trim() + "'"), m);
    assertTrue(m.contains("Allowed: "), m);
    assertTrue(m.contains(allowedFragment), m);
  }

  @Test
  void theJournalIsRefusedWhereItCannotKeepItsPromise() {
    Configuration c = conf();
    c.set(NnauditConfigKeys.ACK_POLICY_KEY, "journal");
    c.set(NnauditConfigKeys.DURABILITY_KEY, "batch");
    String m = assertThrows(IllegalArgumentException.class, () -> NnauditSettings.fromConf(c)).getMessage();
    assertTrue(m.contains(NnauditConfigKeys.ACK_POLICY_KEY) && m.contains("'journal'")
        && m.contains(NnauditConfigKeys.DURABILITY_KEY + "=none"), m);
    c.set(NnauditConfigKeys.DURABILITY_KEY, "none");
    c.set(NnauditConfigKeys.SINK_KEY, "log4j2");
    m = assertThrows(IllegalArgumentException.class, () -> NnauditSettings.fromConf(c)).getMessage();
    assertTrue(m.contains(NnauditConfigKeys.ACK_POLICY_KEY) && m.contains(NnauditConfigKeys.SINK_KEY + "=file"), m);
    c.unset(NnauditConfigKeys.SINK_KEY);
    c.set(NnauditConfigKeys.JOURNAL_SIZE_KEY, "1k");
    m = assertThrows(IllegalArgumentException.class, () -> NnauditSettings.fromConf(c)).getMessage();
    assertTrue(m.contains(NnauditConfigKeys.JOURNAL_SIZE_KEY) && m.contains("'1k'") && m.contains("a size in bytes"), m);
    c.set(NnauditConfigKeys.JOURNAL_SIZE_KEY, "1m");
    assertEquals(1 << 20, NnauditSettings.fromConf(c).sinkContext().journalBytes());
  }

  @Test
  void defaults() {
    Configuration c = conf();
    NnauditSettings s = NnauditSettings.fromConf(c);
    assertEquals(160, s.queueCapacity(), "16 slots per handler, 10 handlers by default");
    assertEquals(QueueFullPolicy.BLOCK, s.queueFullPolicy());
    assertEquals(256L * 1024 * 1024, s.sinkContext().maxFileSize());
    assertEquals(20, s.sinkContext().maxBackups());
    assertEquals("rw-r-----", s.sinkContext().filePermissions());
    assertEquals(NnauditSettings.RecordPrefix.LOG4J, s.recordPrefix());
    assertEquals(1024, s.batchMaxEvents());
    assertEquals(10_000L, s.shutdownTimeoutMs());
    assertEquals(Durability.NONE, s.durability());
    assertEquals(FailurePolicy.FAIL_CLOSED, s.failurePolicy());
    assertEquals(new File(dir.toFile(), "audit.log"), s.file());
  }

  @Test
  void queueFollowsHandlerCountUnlessSet() {
    Configuration c = conf();
    c.setInt("dfs.namenode.handler.count", 64);
    assertEquals(1024, NnauditSettings.fromConf(c).queueCapacity());
    c.setInt("dfs.namenode.handler.count", 1 << 19);
    assertEquals(NnauditSettings.MAX_QUEUE_CAPACITY, NnauditSettings.fromConf(c).queueCapacity(), "capped");
    c.setInt(NnauditConfigKeys.QUEUE_CAPACITY_KEY, 500);
    assertEquals(500, NnauditSettings.fromConf(c).queueCapacity());
  }

  @Test
  void valuesParseCaseInsensitivelyAndWithSizeSuffixes() {
    Configuration c = conf();
    c.set(NnauditConfigKeys.QUEUE_FULL_POLICY_KEY, " drop ");
    c.set(NnauditConfigKeys.FILE_MAX_SIZE_KEY, "10m");
    c.set(NnauditConfigKeys.FILE_PERMISSIONS_KEY, "600");
    c.set(NnauditConfigKeys.RECORD_PREFIX_KEY, "NONE");
    c.set(NnauditConfigKeys.FAILURE_POLICY_KEY, "Fail-Open");
    c.set(NnauditConfigKeys.DURABILITY_KEY, "sync");
    NnauditSettings s = NnauditSettings.fromConf(c);
    assertEquals(QueueFullPolicy.DROP, s.queueFullPolicy());
    assertEquals(10L * 1024 * 1024, s.sinkContext().maxFileSize());
    assertEquals("rw-------", s.sinkContext().filePermissions());
    assertEquals(NnauditSettings.RecordPrefix.NONE, s.recordPrefix());
    assertEquals(FailurePolicy.FAIL_OPEN, s.failurePolicy());
    assertEquals(Durability.SYNC, s.durability());
  }

  @Test
  void badValuesNameKeyValueAndWhatIsAllowed() {
    assertRejected(NnauditConfigKeys.QUEUE_FULL_POLICY_KEY, "WAIT", "one of BLOCK, DROP");
    assertRejected(NnauditConfigKeys.QUEUE_CAPACITY_KEY, "-1", "an integer from 0 to");
    assertRejected(NnauditConfigKeys.QUEUE_CAPACITY_KEY, "lots", "an integer from 0 to");
    assertRejected(NnauditConfigKeys.QUEUE_CAPACITY_KEY, "99999999999", "an integer from 0 to");
    assertRejected(NnauditConfigKeys.WRITER_BATCH_MAX_EVENTS_KEY, "0", "an integer from 1 to");
    assertRejected(NnauditConfigKeys.FILE_MAX_SIZE_KEY, "12q", "a size in bytes");
    assertRejected(NnauditConfigKeys.FILE_MAX_SIZE_KEY, "10", "a size in bytes from 1024");
    assertRejected(NnauditConfigKeys.FILE_MAX_BACKUPS_KEY, "0", "0 is refused");
    assertRejected(NnauditConfigKeys.FILE_PERMISSIONS_KEY, "666", "no one but the owner may write");
    assertRejected(NnauditConfigKeys.FILE_PERMISSIONS_KEY, "rw-r-----", "octal mode");
    assertRejected(NnauditConfigKeys.FILE_PERMISSIONS_KEY, "440", "the owner must be able to write");
    assertRejected(NnauditConfigKeys.RECORD_PREFIX_KEY, "json", "one of log4j, none");
    assertRejected(NnauditConfigKeys.DURABILITY_KEY, "always", "one of none, interval, batch, sync");
    assertRejected(NnauditConfigKeys.FAILURE_POLICY_KEY, "fail-safe", "one of fail-closed, fail-open");
    assertRejected(NnauditConfigKeys.DURABILITY_INTERVAL_MS_KEY, "0", "an integer from 1 to");
    assertRejected(NnauditConfigKeys.DURABILITY_INTERVAL_RECORDS_KEY, "0", "an integer from 1 to");
    assertRejected(NnauditConfigKeys.FAILURE_RETRY_INTERVAL_MS_KEY, "x", "milliseconds");
    assertRejected("dfs.metrics.percentiles.intervals", "60,-1", "positive intervals in seconds");
    assertRejected(NnauditConfigKeys.SHUTDOWN_TIMEOUT_MS_KEY, "-5", "milliseconds");
    assertRejected(NnauditConfigKeys.DROP_WARN_INTERVAL_MS_KEY, "soon", "milliseconds");
    assertRejected(NnauditConfigKeys.FILE_PATH_KEY, "relative/audit.log", "an absolute path");
    assertRejected(NnauditConfigKeys.FILE_PATH_KEY, dir.toString(), "it names a directory");
    assertRejected("dfs.namenode.handler.count", "0", "an integer from 1 to");
    assertRejected("hadoop.caller.context.enabled", "yes", "true or false");
    assertRejected("hadoop.caller.context.max.size", "-3", "an integer from 0 to");
    assertRejected("dfs.namenode.audit.log.token.tracking.id", "maybe", "true or false");
    assertRejected(NnauditConfigKeys.FILE_ROTATE_PERIOD_KEY, "weekly", "one of none, hourly, daily");
    assertRejected(NnauditConfigKeys.FILE_ROTATE_ZONE_KEY, "Mars/Olympus", "a time zone id");
    assertRejected(NnauditConfigKeys.FILE_COMPRESS_KEY, "zip", "one of none, gzip");
    assertRejected(NnauditConfigKeys.FILE_MAX_AGE_KEY, "a week", "a d, h, m or s suffix");
    assertRejected(NnauditConfigKeys.FILE_MAX_AGE_KEY, "-1d", "up to 36500d");
    assertRejected(NnauditConfigKeys.FILE_MAX_AGE_KEY, "99999999d", "up to 36500d");
    assertRejected(NnauditConfigKeys.FILE_MAX_TOTAL_SIZE_KEY, "lots", "a size in bytes");
    assertRejected(NnauditConfigKeys.FILE_ROTATED_NAMES_KEY, ".%d{yyyy-MM}.%i", "does not tell days apart");
    assertRejected(NnauditConfigKeys.FILE_ROTATED_NAMES_KEY, ".%d{yyyy-MM-dd}-%i.gz", "without .gz");
    assertRejected(NnauditConfigKeys.FILE_ROTATED_NAMES_KEY, "by-date", "no %d{...} date");
    assertRejected(NnauditConfigKeys.FILE_ROTATED_NAMES_KEY, ".%d{yyyy-MM-dd}.seals", "ends like a name the trail");
    assertRejected(NnauditConfigKeys.FILE_ROTATED_NAMES_KEY, ".%d{yyyy-MM-dd}.kafka-checkpoint", "ends like a name");
    assertRejected(NnauditConfigKeys.FILE_ROTATED_NAMES_KEY, ".%d{yyyy-MM-dd}.rotating-%i", "ends like a name");
  }

  @Test
  void rotationByTimeCompressionAndRetentionParse() {
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.FILE_PATH_KEY, dir.resolve("a.log").toString());
    c.set(NnauditConfigKeys.FILE_ROTATE_PERIOD_KEY, "Daily");
    c.set(NnauditConfigKeys.FILE_ROTATE_ZONE_KEY, "Europe/Berlin");
    c.set(NnauditConfigKeys.FILE_COMPRESS_KEY, "gzip");
    c.set(NnauditConfigKeys.FILE_MAX_AGE_KEY, "30d");
    c.set(NnauditConfigKeys.FILE_MAX_TOTAL_SIZE_KEY, "10g");
    io.nnaudit.sink.RotationSettings r = NnauditSettings.fromConf(c).sinkContext().rotation();
    assertEquals(io.nnaudit.sink.RotationSettings.Period.DAILY, r.period());
    assertEquals(java.time.ZoneId.of("Europe/Berlin"), r.zone());
    assertEquals(io.nnaudit.sink.RotationSettings.Compression.GZIP, r.compression());
    assertEquals(30L * 86_400_000L, r.maxAgeMs());
    assertEquals(10L << 30, r.maxTotalBytes());
    assertEquals(null, r.datedNames(), "numbered by default");
    c.set(NnauditConfigKeys.FILE_ROTATED_NAMES_KEY, "dated");
    assertEquals(".%d{yyyy-MM-dd}.%i", NnauditSettings.fromConf(c).sinkContext().rotation().datedNames().pattern());
    c.set(NnauditConfigKeys.FILE_ROTATE_PERIOD_KEY, "hourly");
    assertEquals(".%d{yyyy-MM-dd-HH}.%i",
        NnauditSettings.fromConf(c).sinkContext().rotation().datedNames().pattern());
    c.set(NnauditConfigKeys.FILE_ROTATED_NAMES_KEY, "numbered");
    c.set(NnauditConfigKeys.FILE_MAX_AGE_KEY, "12h");
    assertEquals(12L * 3_600_000L, NnauditSettings.fromConf(c).sinkContext().rotation().maxAgeMs());
    c.set(NnauditConfigKeys.FILE_MAX_AGE_KEY, "1500");
    assertEquals(1500L, NnauditSettings.fromConf(c).sinkContext().rotation().maxAgeMs());
    Configuration d = new Configuration(false);
    d.set(NnauditConfigKeys.FILE_PATH_KEY, dir.resolve("a.log").toString());
    io.nnaudit.sink.RotationSettings none = NnauditSettings.fromConf(d).sinkContext().rotation();
    assertEquals(io.nnaudit.sink.RotationSettings.Period.NONE, none.period());
    assertEquals(java.time.ZoneId.of("UTC"), none.zone());
    assertEquals(0, none.maxAgeMs());
    assertEquals(0, none.maxTotalBytes());
  }

  @Test
  void unresolvedDefaultPathIsExplained() {
    Configuration c = new Configuration(false);
    String old = System.clearProperty("hadoop.log.dir");
    try {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> NnauditSettings.fromConf(c));
      assertTrue(e.getMessage().contains(NnauditConfigKeys.FILE_PATH_KEY), e.getMessage());
      assertTrue(e.getMessage().contains("hadoop.log.dir"), e.getMessage());
    } finally {
      if (old != null) {
        System.setProperty("hadoop.log.dir", old);
      }
    }
  }

  @Test
  void defaultPathUsesHadoopLogDir() {
    Configuration c = new Configuration(false);
    String old = System.setProperty("hadoop.log.dir", dir.toString());
    try {
      assertEquals(new File(dir.toFile(), "nnaudit-audit.log"), NnauditSettings.fromConf(c).file());
    } finally {
      if (old == null) {
        System.clearProperty("hadoop.log.dir");
      } else {
        System.setProperty("hadoop.log.dir", old);
      }
    }
  }
}
