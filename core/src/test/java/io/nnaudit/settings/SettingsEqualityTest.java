package io.nnaudit.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.DocumentedKeys;
import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.seal.SealKeys;

/**
 * Settings are equal exactly when they were read from the same values, which decides whether a re-initialize
 * keeps the running pipeline: a change of any one key makes them unequal, so that no change is silently
 * ignored, and the same Configuration read twice makes them equal, so that a repeated initialize joins.
 */
class SettingsEqualityTest {
  @TempDir
  Path dir;

  /** A valid value other than the default for every key in conf/nnaudit-default.xml. */
  private Map<String, String> otherNnauditValues() {
    Map<String, String> m = new TreeMap<>();
    m.put(NnauditConfigKeys.FILE_PATH_KEY, dir.resolve("other.log").toString());
    m.put(NnauditConfigKeys.FILE_MAX_SIZE_KEY, "1m");
    m.put(NnauditConfigKeys.FILE_MAX_BACKUPS_KEY, "3");
    m.put(NnauditConfigKeys.FILE_PERMISSIONS_KEY, "600");
    m.put(NnauditConfigKeys.FILE_ROTATE_PERIOD_KEY, "hourly");
    m.put(NnauditConfigKeys.FILE_ROTATE_ZONE_KEY, "Europe/Berlin");
    m.put(NnauditConfigKeys.FILE_ROTATED_NAMES_KEY, "dated");
    m.put(NnauditConfigKeys.FILE_COMPRESS_KEY, "gzip");
    m.put(NnauditConfigKeys.FILE_MAX_AGE_KEY, "30d");
    m.put(NnauditConfigKeys.FILE_MAX_TOTAL_SIZE_KEY, "10g");
    m.put(NnauditConfigKeys.RECORD_FORMAT_KEY, "json");
    m.put(NnauditConfigKeys.RECORD_PREFIX_KEY, "none");
    m.put(NnauditConfigKeys.QUEUE_CAPACITY_KEY, "500");
    m.put(NnauditConfigKeys.QUEUE_CAPACITY_BYTES_KEY, "1m");
    m.put(NnauditConfigKeys.QUEUE_FULL_POLICY_KEY, "DROP");
    m.put(NnauditConfigKeys.ACK_POLICY_KEY, "queue");
    m.put(NnauditConfigKeys.JOURNAL_SIZE_KEY, "1m");
    m.put(NnauditConfigKeys.HANDLER_MAX_WAIT_MS_KEY, "1000");
    m.put(NnauditConfigKeys.WRITER_BATCH_MAX_EVENTS_KEY, "64");
    m.put(NnauditConfigKeys.WRITER_LINGER_MS_KEY, "1");
    m.put(NnauditConfigKeys.DURABILITY_KEY, "batch");
    m.put(NnauditConfigKeys.DURABILITY_INTERVAL_MS_KEY, "200");
    m.put(NnauditConfigKeys.DURABILITY_INTERVAL_RECORDS_KEY, "10");
    m.put(NnauditConfigKeys.FAILURE_POLICY_KEY, "fail-open");
    m.put(NnauditConfigKeys.FAILURE_RETRY_INTERVAL_MS_KEY, "50");
    m.put(NnauditConfigKeys.SHUTDOWN_TIMEOUT_MS_KEY, "2000");
    m.put(NnauditConfigKeys.DROP_WARN_INTERVAL_MS_KEY, "0");
    m.put(NnauditConfigKeys.SINK_KEY, "log4j2");
    m.put(NnauditConfigKeys.LOG4J2_LOGGER_KEY, "other.audit");
    m.put(NnauditConfigKeys.KAFKA_CHECKPOINT_PATH_KEY, dir.resolve("other.checkpoint").toString());
    m.put(NnauditConfigKeys.KAFKA_CHECKPOINT_INTERVAL_MS_KEY, "500");
    m.put(NnauditConfigKeys.KAFKA_SPOOL_MAX_BACKUPS_KEY, "10");
    m.put(NnauditConfigKeys.KAFKA_NAMESERVICE_ID_KEY, "ns9");
    m.put(NnauditConfigKeys.KAFKA_NAMENODE_ID_KEY, "nn9");
    m.put(NnauditConfigKeys.KAFKA_POLL_INTERVAL_MS_KEY, "50");
    m.put(NnauditConfigKeys.KAFKA_HEADERS_KEY, "compact");
    m.put(NnauditConfigKeys.KAFKA_RECORD_LINES_KEY, "64");
    m.put(NnauditConfigKeys.KAFKA_RETRY_BACKOFF_MS_KEY, "200");
    m.put(NnauditConfigKeys.KAFKA_STOP_TIMEOUT_MS_KEY, "1000");
    m.put(NnauditConfigKeys.SEAL_KEYSTORE_PATH_KEY, dir.resolve("other.p12").toString());
    m.put(NnauditConfigKeys.SEAL_KEYSTORE_TYPE_KEY, "JKS");
    m.put(NnauditConfigKeys.SEAL_KEYSTORE_PASSWORD_KEY, "other-store-password");
    m.put(NnauditConfigKeys.SEAL_KEY_ALIAS_KEY, "other-seal");
    m.put(NnauditConfigKeys.SEAL_KEY_PASSWORD_KEY, "other-key-password");
    m.put(NnauditConfigKeys.SEAL_INTERVAL_RECORDS_KEY, "5");
    m.put(NnauditConfigKeys.SEAL_INTERVAL_MS_KEY, "100");
    return m;
  }

  /** The same for the stock keys nnaudit honours (docs/configuration.md). */
  private static Map<String, String> otherStockValues() {
    Map<String, String> m = new TreeMap<>();
    m.put("dfs.namenode.handler.count", "20");
    m.put("hadoop.caller.context.enabled", "true");
    m.put("hadoop.caller.context.max.size", "64");
    m.put("hadoop.caller.context.signature.max.size", "20");
    m.put("dfs.namenode.audit.log.token.tracking.id", "true");
    m.put("dfs.namenode.audit.log.debug.cmdlist", "getfileinfo");
    m.put("dfs.metrics.percentiles.intervals", "60");
    return m;
  }

  /**
   * key -> default, as documented, less the two keys that turn shipping on: each alone is refused (both are
   * required), and shipping needs the nnaudit-kafka jar; the Kafka module's tests change them. Less the key
   * that turns sealing on, which needs a keystore: the seal tests change it.
   */
  private static Map<String, String> documented() {
    Map<String, String> m = DocumentedKeys.defaults();
    m.remove(NnauditConfigKeys.SEAL_ENABLED_KEY);
    m.remove(NnauditConfigKeys.KAFKA_BOOTSTRAP_SERVERS_KEY);
    m.remove(NnauditConfigKeys.KAFKA_TOPIC_KEY);
    return m;
  }

  private Configuration base() {
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.FILE_PATH_KEY, dir.resolve("audit.log").toString());
    return c;
  }

  @Test
  void everyDocumentedKeyHasAnotherValidValueHere() {
    Map<String, String> documented = documented();
    assertEquals(documented.keySet(), new TreeSet<>(otherNnauditValues().keySet()),
        "a key added to conf/nnaudit-default.xml needs a value in otherNnauditValues()");
    for (Map.Entry<String, String> e : otherNnauditValues().entrySet()) {
      assertNotEquals(documented.get(e.getKey()), e.getValue(), e.getKey() + ": not its default");
    }
  }

  @Test
  void changingAnyOneKeyMakesTheSettingsUnequal() {
    NnauditSettings before = NnauditSettings.fromConf(base());
    Map<String, String> changes = new TreeMap<>(otherNnauditValues());
    changes.putAll(otherStockValues());
    for (Map.Entry<String, String> change : changes.entrySet()) {
      Configuration c = base();
      c.set(change.getKey(), change.getValue());
      NnauditSettings after = NnauditSettings.fromConf(c);
      assertNotEquals(before, after, change.getKey() + "=" + change.getValue() + " must not reuse the pipeline");
    }
  }

  /**
   * What the sealing settings read counts too, stock keys included: with one key per NameNode of an HA pair
   * (a keystore path naming {@code ${dfs.ha.namenode.id}}), a change of dfs.ha.namenode.id alone changes the key
   * that signs, though no nnaudit key changed.
   */
  @Test
  void aChangeOfTheNameNodeIdAloneCountsWithSealingOn() throws Exception {
    Path keys = dir.resolve("keys");
    SealKeys.KeyFiles nn1 = SealKeys.ec(keys.resolve("nn1"));
    SealKeys.ec(keys.resolve("nn2"));
    Configuration c = SealKeys.enable(base(), nn1, dir);
    c.set(NnauditConfigKeys.SEAL_KEYSTORE_PATH_KEY, keys + "/${dfs.ha.namenode.id}/" + nn1.keystore.getFileName());
    c.set("dfs.ha.namenode.id", "nn1");
    FileSystem.closeAll(); // the first reading opens the credential provider with a cold file system cache
    NnauditSettings first = NnauditSettings.fromConf(c);
    assertEquals(first, NnauditSettings.fromConf(new Configuration(c)), "the same Configuration read twice");
    Configuration other = new Configuration(c);
    other.set("dfs.ha.namenode.id", "nn2");
    assertNotEquals(first, NnauditSettings.fromConf(other), "dfs.ha.namenode.id=nn2 must not reuse the pipeline");
  }

  /**
   * Reading the settings opens the credential provider, which may cache a file system JVM-wide with the
   * Configuration it was given: that must not be the copy that records what the settings read, which other
   * threads would then read for the life of the JVM.
   */
  @Test
  void theCopyThatRecordsReadsNeverReachesTheFileSystemCache() throws Exception {
    SealKeys.KeyFiles key = SealKeys.ec(dir.resolve("keys"));
    Configuration c = SealKeys.enable(base(), key, dir);
    FileSystem.closeAll(); // cold: the provider's look-up caches the local file system with its Configuration
    NnauditSettings.fromConf(c);
    Configuration cached = FileSystem.getLocal(new Configuration()).getConf();
    assertFalse(cached.getClass().getName().contains("Recording"), "the cache holds " + cached.getClass());
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread other = new Thread(() -> {
      try {
        FileSystem.getLocal(new Configuration()).mkdirs(new org.apache.hadoop.fs.Path(dir.resolve("m").toString()));
      } catch (Throwable t) {
        failure.set(t);
      }
    });
    other.start();
    other.join();
    assertNull(failure.get(), "another thread uses the cached file system");
  }

  @Test
  void aCustomSinksOwnKeyCounts() {
    Configuration c = base();
    c.set("nnaudit.custom.endpoint", "https://audit.example:8443");
    assertNotEquals(NnauditSettings.fromConf(base()), NnauditSettings.fromConf(c));
  }

  @Test
  void theSameConfigurationReadTwiceGivesEqualSettings() {
    Configuration c = base();
    Map<String, String> all = new TreeMap<>(otherNnauditValues());
    all.putAll(otherStockValues());
    all.forEach(c::set);
    c.set("nnaudit.custom.endpoint", "https://audit.example:8443");
    NnauditSettings first = NnauditSettings.fromConf(c);
    NnauditSettings again = NnauditSettings.fromConf(c);
    NnauditSettings copy = NnauditSettings.fromConf(new Configuration(c));
    assertEquals(first, again);
    assertEquals(first.hashCode(), again.hashCode());
    assertEquals(first, copy);
    assertEquals(first.hashCode(), copy.hashCode());
    assertEquals(NnauditSettings.fromConf(base()), NnauditSettings.fromConf(base()));
  }

  @Test
  void aNumberSetToItsDefaultReadsAsUnset() {
    Configuration c = base();
    c.setInt(NnauditConfigKeys.WRITER_BATCH_MAX_EVENTS_KEY, NnauditConfigKeys.WRITER_BATCH_MAX_EVENTS_DEFAULT);
    c.setLong(NnauditConfigKeys.FILE_MAX_SIZE_KEY, NnauditConfigKeys.FILE_MAX_SIZE_DEFAULT);
    NnauditSettings unset = NnauditSettings.fromConf(base());
    NnauditSettings set = NnauditSettings.fromConf(c);
    assertEquals(unset, set);
    assertEquals(unset.hashCode(), set.hashCode());
  }
}
