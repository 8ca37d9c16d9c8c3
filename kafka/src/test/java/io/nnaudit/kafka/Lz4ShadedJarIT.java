package io.nnaudit.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.lang.management.ManagementFactory;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import javax.management.ObjectName;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.ship.ShipStats;
import io.nnaudit.ship.ShipperContext;
import io.nnaudit.ship.SpoolGuard;

/**
 * The packaged jar ships with {@code compression.type=lz4}: it holds kafka-clients and lz4-java relocated under
 * {@code io.nnaudit.shaded}, without lz4-java's native libraries or their loader, so that the compressor is pure
 * Java. Run by failsafe once the jar is built, with the shipper's classes taken from the jar (kafka/pom.xml): a
 * shipper from the jar sends 5000 lines, lz4-compressed, to a real broker, and they are read back exact and in
 * order.
 */
class Lz4ShadedJarIT {
  private static final String SHADED = "io.nnaudit.shaded.net.jpountz.";

  @TempDir
  Path dir;

  @RegisterExtension
  final ShippingClusterExtension kafka = new ShippingClusterExtension(() -> dir);

  @Test
  void theJarCompressesWithPureJavaLz4AndTheTrailArrivesExact() throws Exception {
    URL jar = KafkaShipper.class.getProtectionDomain().getCodeSource().getLocation();
    assertTrue(jar.getPath().matches(".*/nnaudit-kafka-[^/]*\\.jar"),
        "the shipper comes from the packaged jar: " + jar);
    Class<?> lz4 = Class.forName(SHADED + "lz4.LZ4Factory");
    assertEquals(jar, lz4.getProtectionDomain().getCodeSource().getLocation(), "lz4-java is relocated in the jar");
    assertNull(KafkaShipper.class.getClassLoader().getResource("io/nnaudit/shaded/net/jpountz/util/linux/amd64/"
        + "liblz4-java.so"), "no native library in the jar");
    Class<?> loader = Class.forName(SHADED + "util.Native");
    assertFalse(loader.isEnum(), "the jar's loader of native lz4 is nnaudit's, which looks for none, not lz4-java's");

    KafkaTestBroker broker = kafka.broker();
    broker.createTopic("lz4", 1);
    File f = dir.resolve("audit").resolve("audit.log").toFile();
    f.getParentFile().mkdirs();
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 5000; i++) {
      sb.append(new String(ShipRate.line(i), StandardCharsets.UTF_8)).append('\n');
    }
    Files.write(f.toPath(), sb.toString().getBytes(StandardCharsets.UTF_8));
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.KAFKA_BOOTSTRAP_SERVERS_KEY, broker.bootstrapServers());
    c.set(NnauditConfigKeys.KAFKA_TOPIC_KEY, "lz4");
    c.set(NnauditConfigKeys.KAFKA_NAMESERVICE_ID_KEY, "ns1");
    c.set(NnauditConfigKeys.KAFKA_NAMENODE_ID_KEY, "nn1");
    c.set(NnauditConfigKeys.KAFKA_PRODUCER_PREFIX + "compression.type", "lz4");
    KafkaShipper s = new KafkaShipper(new ShipperContext(c, f, 10, "hdfs", new SpoolGuard(100)));
    s.start();
    ShippingCluster.await("caught up", 60_000, () -> s.stats().lagRecords == 0);
    // What the producer's compressor was, now that it has compressed: the factories as Kafka asks for them.
    String lz4Instance = String.valueOf(lz4.getMethod("fastestInstance").invoke(null));
    String xxhashInstance = String.valueOf(Class.forName(SHADED + "xxhash.XXHashFactory")
        .getMethod("fastestInstance").invoke(null));
    boolean nativeLoaded = (Boolean) loader.getMethod("isLoaded").invoke(null);
    Object ratio = ManagementFactory.getPlatformMBeanServer().getAttribute(
        new ObjectName("kafka.producer:type=producer-metrics,client-id=nnaudit-ns1-nn1"), "compression-rate-avg");
    ShipStats stats = s.stats();
    s.stop(5000);
    System.out.println("shaded jar " + jar + ": lz4 " + lz4Instance + ", xxhash " + xxhashInstance + ", native loaded "
        + nativeLoaded + ", compression-rate-avg " + ratio + "; " + stats);
    assertEquals("LZ4Factory:JavaSafe", lz4Instance, "the pure-Java, bounds-checked lz4");
    assertFalse(nativeLoaded, "no native lz4");
    assertTrue(((Number) ratio).doubleValue() < 0.9, "the batches were compressed: ratio " + ratio);
    assertEquals(0, stats.sendErrors, stats.toString());
    TrailCheck.of(ShippedRecord.of(broker.readAll("lz4", 5000, Duration.ofSeconds(30))), "ns1/nn1")
        .assertLines(TrailCheck.localLines(f), "every line, in order, through lz4");
  }
}
