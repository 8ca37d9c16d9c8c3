package io.nnaudit.bench;

import java.util.ArrayList;
import java.util.List;

import org.apache.log4j.AppenderSkeleton;
import org.apache.log4j.Level;
import org.apache.log4j.Logger;
import org.apache.log4j.spi.LoggingEvent;

/**
 * NNThroughputBenchmark reports its figures only through LOG.info; this appender keeps those lines so the
 * harness can read "# operations", "Elapsed Time" and "Ops per sec" for each run.
 */
final class BenchmarkLogCapture extends AppenderSkeleton {
  private final List<String> lines = new ArrayList<>();

  static BenchmarkLogCapture attach() {
    BenchmarkLogCapture c = new BenchmarkLogCapture();
    Logger l = Logger.getLogger("org.apache.hadoop.hdfs.server.namenode.NNThroughputBenchmark");
    l.setLevel(Level.INFO);
    l.setAdditivity(false); // keep its chatter out of the console
    l.addAppender(c);
    return c;
  }

  @Override
  protected synchronized void append(LoggingEvent event) {
    lines.add(String.valueOf(event.getRenderedMessage()));
  }

  synchronized void clear() {
    lines.clear();
  }

  /** The number after "{@code label}:" in the last "--- op stats ---" block. */
  synchronized double last(String label) {
    for (int i = lines.size() - 1; i >= 0; i--) {
      String l = lines.get(i).trim();
      if (l.startsWith(label + ":")) {
        return Double.parseDouble(l.substring(label.length() + 1).trim());
      }
    }
    throw new IllegalStateException("NNThroughputBenchmark printed no '" + label + "' line: " + lines);
  }

  @Override
  public void close() {
  }

  @Override
  public boolean requiresLayout() {
    return false;
  }
}
