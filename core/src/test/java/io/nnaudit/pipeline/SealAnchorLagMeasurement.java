package io.nnaudit.pipeline;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.ChildServer;
import io.nnaudit.MkdirsLoad;
import io.nnaudit.RealNameNodeProcess;
import io.nnaudit.SealAnchorProbe;
import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.seal.SealKeys;

/**
 * How far behind the newest seal a hash read off the NameNode's /jmx is, under load: the live anchor bean
 * ({@code NnauditSeal}, attribute {@code LatestSealHash}) beside the metrics2 tag ({@code NnauditLogger},
 * {@code tag.LatestSealHash}), both read in the same requests, with the metrics period at its default (10 s) and
 * at 1 s. A real NameNode process (its period set in {@code hadoop-metrics2-namenode.properties}), 16 clients
 * calling mkdirs, audit files of 256 KB, a seal every 200 records; after 12 s of load, /jmx read every 100 ms
 * for 60 s (and, with the 1 s period, every 1.5 s: reads further apart than the period); each hash placed in
 * the live digests at the moment of reading by {@link SealAnchorProbe}. The lag of a read is the newest seal in
 * the digests just before the request minus the seal read, in seals, in the seals' own times and in audit
 * files.
 *
 * <p>A measurement, not part of the suite (its name does not end in Test). Run it alone, on an idle machine:
 * <pre>
 * mvn -B -ntp -o -q test -Dtest=SealAnchorLagMeasurement -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 * It writes {@code reads.csv} (every read) and {@code summary.csv} to {@code target/seal-anchor-lag/}, or to the
 * directory {@code -Dnnaudit.anchor.lag.out=DIR} names, and prints the summary.
 */
class SealAnchorLagMeasurement {
  @TempDir
  Path dir;

  private static final int CLIENTS = 16;
  private static final long RUN_MS = 60_000;
  /**
   * Load before the first read: longer than the longest period, so that no read finds a snapshot metrics2 took
   * before the load (at start-up, when it registered the source), whose seal is older than its snapshot.
   */
  private static final long WARM_UP_MS = 12_000;

  /** One configuration: the metrics period and how often /jmx is read. */
  private static final class Run {
    final int periodSeconds;
    final long pollMs;

    Run(int periodSeconds, long pollMs) {
      this.periodSeconds = periodSeconds;
      this.pollMs = pollMs;
    }

    String label() {
      return "period " + periodSeconds + " s, read every " + pollMs + " ms";
    }
  }

  @Test
  void lagOfTheAnchorReadOffJmx() throws Exception {
    Path out = Paths.get(System.getProperty("nnaudit.anchor.lag.out", "target/seal-anchor-lag"));
    Files.createDirectories(out);
    Path keyDir = dir.resolve("keys");
    SealKeys.KeyFiles ec = SealKeys.ec(keyDir);
    List<Run> runs = Arrays.asList(new Run(10, 100), new Run(1, 100), new Run(1, 1500));
    List<String> summary = new ArrayList<>();
    summary.add("period_s,poll_ms,channel,reads,seals_per_s,records_per_s,lag_seals_median,lag_seals_p90,"
        + "lag_seals_max,lag_ms_median,lag_ms_p90,lag_ms_max,lag_files_median,lag_files_p90,lag_files_max");
    try (PrintWriter reads = new PrintWriter(Files.newBufferedWriter(out.resolve("reads.csv"),
        StandardCharsets.UTF_8))) {
      reads.println("period_s,poll_ms,channel,read_at_ms,seal,newest_before,newest_after,lag_seals,lag_ms,"
          + "lag_files");
      int n = 0;
      for (Run run : runs) {
        summary.addAll(measure(run, ec, keyDir, dir.resolve("run" + (++n)).toFile(), reads));
      }
    }
    Files.write(out.resolve("summary.csv"), summary, StandardCharsets.UTF_8);
    System.out.println(String.join("\n", summary));
  }

  private List<String> measure(Run run, SealKeys.KeyFiles ec, Path keyDir, File base, PrintWriter csv)
      throws Exception {
    Configuration sealing = SealKeys.enable(new Configuration(false), ec, keyDir);
    sealing.set(NnauditConfigKeys.FILE_MAX_SIZE_KEY, "256k");
    sealing.setInt(NnauditConfigKeys.FILE_MAX_BACKUPS_KEY, 10_000); // every seal read stays in the trail
    sealing.setInt(NnauditConfigKeys.SEAL_INTERVAL_RECORDS_KEY, 200);
    Map<String, String> site = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : sealing) {
      site.put(e.getKey(), e.getValue());
    }
    int http = ChildServer.freePort();
    site.put("dfs.namenode.http-address", "127.0.0.1:" + http);
    Map<String, String> confFiles = new LinkedHashMap<>();
    confFiles.put("hadoop-metrics2-namenode.properties", "*.period=" + run.periodSeconds + "\n");

    List<SealAnchorProbe.Read> all = new ArrayList<>();
    SealAnchorProbe.Channel live = new SealAnchorProbe.Channel("anchor bean", SealAnchor.BASE_NAME,
        "LatestSealHash");
    SealAnchorProbe.Channel tag = new SealAnchorProbe.Channel("metrics2 tag", NnauditMetricsSource.BASE_NAME,
        "tag.LatestSealHash");
    long seals;
    long records;
    try (RealNameNodeProcess nn = RealNameNodeProcess.start(base, site, confFiles)) {
      SealAnchorProbe probe = new SealAnchorProbe(nn.auditFile().toPath(), "http://127.0.0.1:" + http + "/jmx",
          "Hadoop:service=NameNode,name=Nnaudit*", Arrays.asList(live, tag));
      try (MkdirsLoad load = new MkdirsLoad(nn.uri(), CLIENTS, "/lag").start()) {
        assertTrue(load.awaitAcked(5000, 120_000), "the load ran: " + load.ackedCount() + "; " + load.endings());
        Thread.sleep(WARM_UP_MS);
        long firstSeal = probe.newest().number;
        int firstAcked = load.ackedCount();
        long start = System.currentTimeMillis();
        while (System.currentTimeMillis() - start < RUN_MS) {
          all.addAll(probe.read());
          Thread.sleep(run.pollMs);
        }
        long elapsed = System.currentTimeMillis() - start;
        seals = (probe.newest().number - firstSeal) * 1000 / elapsed;
        records = (load.ackedCount() - firstAcked) * 1000L / elapsed;
      }
    }
    for (SealAnchorProbe.Read r : all) {
      assertNotNull(r.seal, "the trail holds the seal read: " + r);
      csv.println(run.periodSeconds + "," + run.pollMs + "," + r.channel.label + "," + r.readAtMillis + ","
          + r.seal.number + "," + r.newestBefore.number + "," + r.newestAfter.number + "," + r.lagSeals() + ","
          + r.lagMillis() + "," + Math.max(0, r.newestBefore.file - r.seal.file));
    }
    List<String> rows = new ArrayList<>();
    for (SealAnchorProbe.Channel c : Arrays.asList(live, tag)) {
      List<SealAnchorProbe.Read> of = new ArrayList<>();
      for (SealAnchorProbe.Read r : all) {
        if (r.channel == c) {
          of.add(r);
        }
      }
      rows.add(run.periodSeconds + "," + run.pollMs + "," + c.label + "," + of.size() + "," + seals + ","
          + records + "," + stats(of, SealAnchorProbe.Read::lagSeals) + ","
          + stats(of, SealAnchorProbe.Read::lagMillis) + ","
          + stats(of, r -> Math.max(0, r.newestBefore.file - r.seal.file)));
      System.out.println(run.label() + ", " + c.label + ": " + rows.get(rows.size() - 1));
    }
    return rows;
  }

  /** Median, 90th percentile and maximum (nearest rank). */
  private static String stats(List<SealAnchorProbe.Read> reads, ToLongFunction<SealAnchorProbe.Read> f) {
    long[] v = reads.stream().mapToLong(f).sorted().toArray();
    return v[(v.length - 1) / 2] + "," + v[(int) Math.ceil(v.length * 0.9) - 1] + "," + v[v.length - 1];
  }
}
