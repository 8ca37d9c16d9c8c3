package io.nnaudit.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

import io.nnaudit.config.NnauditConfigKeys;

/**
 * The shipper's settings on their own: the compression types the jar can produce, the form of the headers, the
 * metadata wait, and the defaults an operator may change.
 */
class ShipperSettingsTest {
  private static Configuration conf() {
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.KAFKA_BOOTSTRAP_SERVERS_KEY, "127.0.0.1:9092");
    c.set(NnauditConfigKeys.KAFKA_TOPIC_KEY, "audit");
    c.set(NnauditConfigKeys.KAFKA_NAMESERVICE_ID_KEY, "ns1");
    c.set(NnauditConfigKeys.KAFKA_NAMENODE_ID_KEY, "nn1");
    return c;
  }

  private static ShipperSettings settings(Configuration c) {
    return ShipperSettings.fromConf(c, new File("/var/log/audit.log"));
  }

  @Test
  void clientMetricsAreNotPushedUnlessAsked() {
    assertEquals("false", settings(conf()).producer.getProperty("enable.metrics.push"));
    Configuration c = conf();
    c.set(NnauditConfigKeys.KAFKA_PRODUCER_PREFIX + "enable.metrics.push", "true");
    assertEquals("true", settings(c).producer.getProperty("enable.metrics.push"));
  }

  @Test
  void lz4GzipAndNoneAreAcceptedZstdAndSnappyRefused() {
    assertEquals("none", settings(conf()).producer.getProperty("compression.type"));
    for (String type : new String[] {"none", "gzip", "lz4"}) {
      Configuration c = conf();
      c.set(NnauditConfigKeys.KAFKA_PRODUCER_PREFIX + "compression.type", type);
      assertEquals(type, settings(c).producer.getProperty("compression.type"));
    }
    for (String type : new String[] {"zstd", "snappy"}) {
      Configuration c = conf();
      c.set(NnauditConfigKeys.KAFKA_PRODUCER_PREFIX + "compression.type", type);
      String refusal = assertThrows(IllegalArgumentException.class, () -> settings(c)).getMessage();
      assertTrue(refusal.startsWith("nnaudit: invalid value for nnaudit.kafka.producer.compression.type: '" + type
          + "'. Allowed: none, gzip or lz4"), refusal);
    }
  }

  @Test
  void headersAreNamedUnlessCompactIsAskedForAndNothingElseIsTaken() {
    assertFalse(settings(conf()).compactHeaders);
    Configuration c = conf();
    c.set(NnauditConfigKeys.KAFKA_HEADERS_KEY, " compact ");
    assertTrue(settings(c).compactHeaders);
    c.set(NnauditConfigKeys.KAFKA_HEADERS_KEY, "Compact"); // in any case, as the other settings of a few words
    assertTrue(settings(c).compactHeaders);
    c.set(NnauditConfigKeys.KAFKA_HEADERS_KEY, "named");
    assertFalse(settings(c).compactHeaders);
    for (String bad : new String[] {"short", "", "compact,named"}) {
      c.set(NnauditConfigKeys.KAFKA_HEADERS_KEY, bad);
      String refusal = assertThrows(IllegalArgumentException.class, () -> settings(c)).getMessage();
      assertTrue(refusal.startsWith("nnaudit: invalid value for nnaudit.kafka.headers: '" + bad + "'. Allowed: "
          + "named (seven headers nnaudit.*) or compact (one header nnaudit)"), refusal);
    }
  }

  @Test
  void recordLinesIsOneUnlessMoreAreAskedForUpToTheMostARecordsRecordHolds() {
    assertEquals(1, settings(conf()).recordLines);
    Configuration c = conf();
    c.set(NnauditConfigKeys.KAFKA_RECORD_LINES_KEY, " 64 ");
    assertEquals(64, settings(c).recordLines);
    c.set(NnauditConfigKeys.KAFKA_RECORD_LINES_KEY, "1024");
    assertEquals(ShipHeaders.MAX_RECORD_LINES, settings(c).recordLines);
    for (String bad : new String[] {"0", "-1", "1025", "many", "1.5"}) {
      c.set(NnauditConfigKeys.KAFKA_RECORD_LINES_KEY, bad);
      String refusal = assertThrows(IllegalArgumentException.class, () -> settings(c)).getMessage();
      assertTrue(refusal.startsWith("nnaudit: invalid value for nnaudit.kafka.record.lines: '" + bad + "'. Allowed: "
          + "an integer from 1 to 1024 (audit lines per record)"), refusal);
    }
  }

  @Test
  void aMetadataWaitIsQuietFor30SecondsOrTheDeliveryTimeoutIfShorter() {
    assertEquals(30_000, settings(conf()).metadataWaitMs);
    Configuration c = conf();
    c.set(NnauditConfigKeys.KAFKA_PRODUCER_PREFIX + "delivery.timeout.ms", "8000");
    c.set(NnauditConfigKeys.KAFKA_PRODUCER_PREFIX + "request.timeout.ms", "3000");
    assertEquals(8000, settings(c).metadataWaitMs);
  }
}
