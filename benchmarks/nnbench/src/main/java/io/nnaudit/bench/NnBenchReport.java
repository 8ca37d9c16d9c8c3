package io.nnaudit.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What nnbench prints: a header naming each variant's NameNode and the order of the passes, then a table with
 * a row per op (ops/s per variant, its ratio to off, the records check), how far the passes of a cell were
 * apart, and the verdict.
 */
final class NnBenchReport {
  private NnBenchReport() {
  }

  static void printHeader(NnBenchOptions o, Map<String, VariantNameNode> targets, List<String> reversed,
      int brokerPort) {
    System.out.println(String.format(Locale.ROOT, "NNThroughputBenchmark over RPC, %d client threads, %d handlers,"
        + " %d files per op, against one NameNode per variant in this JVM:", o.threads, o.threads, o.files));
    for (String v : Variants.shown(o.variants)) {
      VariantNameNode t = targets.get(v);
      String what;
      switch (t.variant) {
        case "off":
          what = "no auditing: Hadoop's logger alone, its log4j logger at WARN, so the NameNode audits nothing";
          break;
        case "stock":
          what = "Hadoop's logger, log4j's synchronous RollingFileAppender as Hadoop ships it: " + t.auditFile;
          break;
        case Variants.KAFKA:
          what = "nnaudit as above, shipping its audit file to Kafka topic " + Variants.TOPIC + " at 127.0.0.1:"
              + brokerPort + " (a test broker in a child JVM): " + t.auditFile;
          break;
        default:
          what = (o.policy.equals("BLOCK") ? "nnaudit with its defaults: "
              : "nnaudit with its defaults but nnaudit.queue.full.policy=" + o.policy + ": ") + t.auditFile;
          break;
      }
      System.out.println(String.format(Locale.ROOT, "  %-13s %s", t.variant, what));
    }
    System.out.println(String.format(Locale.ROOT, "A warm-up pass on each, then two measured passes: %s, then %s."
        + " ops/s: the mean of the two.", String.join(" ", o.variants), String.join(" ", reversed)));
  }

  /**
   * The table and what follows it. {@code shipped}: the nnaudit+kafka check ("acknowledged/lines yes|NO"), or
   * null without that variant.
   */
  static void printSummary(NnBenchOptions o, Map<String, ResultCell> cells, long dropped, String shipped,
      boolean allMatch) {
    System.out.println();
    table(Variants.shown(o.variants), o.ops, cells).forEach(System.out::println);
    System.out.println();
    System.out.println(String.format(Locale.ROOT, "One short run: the records check is exact, but the two passes of a"
        + " cell differed by up to %.0f%%, so smaller differences are noise here; benchmarks/RESULTS.md has"
        + " repeated, pinned measurements.", 100 * maxSpread(cells.values())));
    if (dropped > 0) {
      System.out.println("nnaudit dropped " + dropped + " events (nnaudit.queue.full.policy=" + o.policy + ")");
    }
    if (shipped != null) {
      System.out.println(Variants.KAFKA + ": records acknowledged by Kafka == lines in its audit file: " + shipped);
    }
    System.out.println("audit records == operations" + (shipped != null ? ", and every one shipped" : "") + ": "
        + (allMatch ? "yes" : "NO"));
  }

  /** The results side by side: a row per op; ops/s per variant, its ratio to off, the records check. */
  static List<String> table(List<String> variants, List<String> ops, Map<String, ResultCell> cells) {
    boolean off = variants.contains("off");
    List<List<String>> rows = new ArrayList<>();
    List<String> head = new ArrayList<>();
    head.add("op");
    for (String v : variants) {
      head.add(v + " ops/s");
      if (off && !v.equals("off")) {
        head.add("x off");
      }
    }
    for (String v : variants) {
      if (Variants.hasAuditFile(v)) {
        head.add(v + " records==ops");
      }
    }
    rows.add(head);
    for (String op : ops) {
      List<String> row = new ArrayList<>();
      row.add(op);
      double offMean = off ? cells.get(ResultCell.key("off", op)).mean() : 0;
      for (String v : variants) {
        double mean = cells.get(ResultCell.key(v, op)).mean();
        row.add(String.format(Locale.ROOT, "%.0f", mean));
        if (off && !v.equals("off")) {
          row.add(offMean > 0 ? String.format(Locale.ROOT, "%.2f", mean / offMean) : "-");
        }
      }
      for (String v : variants) {
        if (Variants.hasAuditFile(v)) {
          ResultCell c = cells.get(ResultCell.key(v, op));
          row.add(c.records + "/" + c.ops + (c.recordsMatch() ? " yes" : " NO"));
        }
      }
      rows.add(row);
    }
    int[] width = new int[head.size()];
    for (List<String> row : rows) {
      for (int i = 0; i < row.size(); i++) {
        width[i] = Math.max(width[i], row.get(i).length());
      }
    }
    List<String> lines = new ArrayList<>();
    for (List<String> row : rows) {
      StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%-" + width[0] + "s", row.get(0)));
      for (int i = 1; i < row.size(); i++) {
        sb.append(String.format(Locale.ROOT, "  %" + width[i] + "s", row.get(i)));
      }
      lines.add(sb.toString());
    }
    return lines;
  }

  static double maxSpread(Iterable<ResultCell> cells) {
    double max = 0;
    for (ResultCell c : cells) {
      max = Math.max(max, c.spread());
    }
    return max;
  }
}
