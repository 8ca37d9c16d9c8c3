package io.nnaudit.bench;

import java.io.File;
import java.util.Arrays;
import java.util.List;

/**
 * nnbench's command line: {@code --ops create,fileStatus --threads 16 --files 20000 --policy BLOCK --variants
 * off,stock,nnaudit --dir target/nnbench --broker-classpath kafka/test-broker/target/broker.classpath}.
 * {@code --broker-classpath} alone adds the fourth variant, {@code nnaudit+kafka}.
 */
final class NnBenchOptions {
  List<String> ops = Arrays.asList("create", "fileStatus");
  List<String> variants = Variants.ALL.subList(0, 3);
  /** The test broker's classpath file (kafka/test-broker/target/broker.classpath); null: no nnaudit+kafka. */
  File brokerClasspath;
  int threads = 16;
  int files = 20_000;
  String policy = "BLOCK";
  File dir = new File("target/nnbench");

  /** The options of {@code args}; IllegalArgumentException, with what is wrong, for a bad one. */
  static NnBenchOptions parse(String... args) {
    NnBenchOptions o = new NnBenchOptions();
    for (int i = 0; i < args.length; i += 2) {
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException("option " + args[i] + " needs a value");
      }
      String v = args[i + 1];
      switch (args[i]) {
        case "--ops":
          o.ops = Arrays.asList(v.split(","));
          o.ops.forEach(AuditRecords::auditCmd);
          break;
        case "--variants":
          o.variants = Arrays.asList(v.split(","));
          for (String variant : o.variants) {
            if (!Variants.ALL.contains(variant)) {
              throw new IllegalArgumentException("unknown variant '" + variant + "'; use " + Variants.ALL);
            }
          }
          if (o.variants.stream().distinct().count() != o.variants.size()) {
            throw new IllegalArgumentException("a variant is named twice in " + v);
          }
          break;
        case "--threads":
          o.threads = positive(args[i], v);
          break;
        case "--files":
          o.files = positive(args[i], v);
          break;
        case "--policy":
          o.policy = v;
          break;
        case "--dir":
          o.dir = new File(v);
          break;
        case "--broker-classpath":
          o.brokerClasspath = new File(v);
          break;
        default:
          throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    if (o.brokerClasspath != null && !explicitVariants(args)) {
      o.variants = Variants.ALL;
    }
    if (o.variants.contains(Variants.KAFKA) && o.brokerClasspath == null) {
      throw new IllegalArgumentException("variant " + Variants.KAFKA + " needs --broker-classpath (nnbench --kafka)");
    }
    return o;
  }

  private static boolean explicitVariants(String... args) {
    return Arrays.asList(args).contains("--variants");
  }

  private static int positive(String option, String v) {
    int n;
    try {
      n = Integer.parseInt(v);
    } catch (NumberFormatException e) {
      n = 0;
    }
    if (n < 1) {
      throw new IllegalArgumentException(option + " needs a positive number, not '" + v + "'");
    }
    return n;
  }
}
