package io.nnaudit.bench;

import java.util.ArrayList;
import java.util.List;

/** One op on one variant: ops/s of each measured pass; operations and audit records over every pass. */
final class ResultCell {
  final List<Double> opsPerSec = new ArrayList<>();
  long ops;
  long records;

  /** The key of a cell in the map of results. */
  static String key(String variant, String op) {
    return variant + " " + op;
  }

  double mean() {
    return opsPerSec.stream().mapToDouble(Double::doubleValue).average().orElse(0);
  }

  /** (highest - lowest) / mean of the measured passes: how far the same measurement moved. */
  double spread() {
    double mean = mean();
    if (mean == 0) {
      return 0;
    }
    double max = opsPerSec.stream().mapToDouble(Double::doubleValue).max().orElse(0);
    double min = opsPerSec.stream().mapToDouble(Double::doubleValue).min().orElse(0);
    return (max - min) / mean;
  }

  boolean recordsMatch() {
    return records == ops;
  }
}
