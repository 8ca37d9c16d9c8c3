package io.nnaudit.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * The audit variants nnbench runs, one NameNode each, and what sets them apart.
 *
 * <ul>
 *   <li>{@code off}: Hadoop's own audit logger alone, its log4j logger ({@code FSNamesystem.audit}) at WARN.
 *       FSNamesystem then audits nothing: with the default logger as the only one and its log below INFO,
 *       {@code isAuditEnabled()} is false and no logger is called ({@code benchmarks/nn_compare.py}'s
 *       {@code off}).</li>
 *   <li>{@code stock}: the same logger at INFO, writing {@code hdfs-audit.log} through the synchronous
 *       {@code RollingFileAppender} that Hadoop's {@code log4j.properties} ships as {@code RFAAUDIT}
 *       (nn_compare.py's {@code stock-sync}; see {@link StockAuditLog}).</li>
 *   <li>{@code nnaudit}: {@code dfs.namenode.audit.loggers=io.nnaudit.QueuedAuditLogger} with nnaudit's
 *       defaults ({@code --policy} sets {@code nnaudit.queue.full.policy}).</li>
 *   <li>{@code nnaudit+kafka}, with {@code --broker-classpath}: {@code nnaudit}, shipping its audit file to the
 *       topic {@value #TOPIC} of a test broker (kafka/test-broker, see {@link TestBrokerProcess}); the
 *       nnaudit-kafka jar must be on the classpath. Its records check also needs every record of its audit file
 *       acknowledged by the broker (ShippedRecords equal to the lines on disk, nothing left to ship) once the
 *       last pass is over.</li>
 * </ul>
 */
final class Variants {
  static final List<String> ALL =
      Collections.unmodifiableList(Arrays.asList("off", "stock", "nnaudit", "nnaudit+kafka"));
  /** The variant that ships to Kafka, and the topic it ships to. */
  static final String KAFKA = "nnaudit+kafka";
  static final String TOPIC = "nnbench";

  private Variants() {
  }

  static boolean isNnaudit(String variant) {
    return variant.equals("nnaudit") || variant.equals(KAFKA);
  }

  static boolean hasAuditFile(String variant) {
    return !variant.equals("off");
  }

  /** The variant's name in paths, local and in HDFS. */
  static String dirName(String variant) {
    return variant.replace('+', '-');
  }

  /** The variants run, in the table's order (off, stock, nnaudit), whatever order they ran in. */
  static List<String> shown(List<String> run) {
    List<String> shown = new ArrayList<>(ALL);
    shown.retainAll(run);
    return shown;
  }
}
