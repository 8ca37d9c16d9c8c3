package io.nnaudit.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.server.namenode.StockAuditMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** nnbench's records check, its summary of the passes and its options. */
class NnBenchTest {
  @TempDir
  File dir;

  /** A line as Hadoop's stock audit log writes it: its prefix, then the stock logger's own message. */
  private static String stockLine(String cmd, String src, String dst) throws IOException {
    return "2026-11-23 10:00:00,000 INFO FSNamesystem.audit: " + StockAuditMessage.of(new Configuration(), true,
        "root (auth:SIMPLE)", InetAddress.getLoopbackAddress(), cmd, src, dst, null, null) + "\n";
  }

  private static void append(File f, String... lines) throws IOException {
    Files.write(f.toPath(), String.join("", lines).getBytes(StandardCharsets.UTF_8), StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
  }

  @Test
  void countsOnlyTheRunsOwnRecordsOfItsCommandAfterTheOffset() throws IOException {
    File audit = new File(dir, "hdfs-audit.log");
    String run = "/nnbench/stock/1/fileStatus/";
    // An earlier run's records of the same op and directory, before the offset.
    append(audit, stockLine("getfileinfo", run + "ThroughputBenchDir0/ThroughputBench0", null));
    long offset = audit.length();
    append(audit,
        stockLine("getfileinfo", run + "ThroughputBenchDir0/ThroughputBench1", null),
        stockLine("getfileinfo", run + "ThroughputBenchDir1/ThroughputBench1000", null),
        // Set-up calls of the benchmark: the op's directory itself, another command, a rename into it.
        stockLine("getfileinfo", "/nnbench/stock/1/fileStatus", null),
        stockLine("create", run + "ThroughputBenchDir0/ThroughputBench2", null),
        stockLine("rename", "/nnbench/stock/1/create", "/nnbench/stock/1/fileStatus"),
        // The same op under another pass's directory.
        stockLine("getfileinfo", "/nnbench/stock/2/fileStatus/ThroughputBenchDir0/ThroughputBench0", null));

    assertEquals(2, AuditRecords.countRecords(audit, offset, AuditRecords.auditCmd("fileStatus"), run));
    assertEquals(3, AuditRecords.countRecords(audit, 0, "getfileinfo", run));
    assertEquals(0, AuditRecords.countRecords(new File(dir, "never-written.log"), 0, "create", run));
  }

  @Test
  void aRotatingTrailIsCountedAcrossPlainAndCompressedFilesEachRecordOnce() throws Exception {
    File audit = new File(dir, "nnaudit-audit.log");
    String run = "/nnbench/nnaudit/1/create/";
    String a = stockLine("create", run + "ThroughputBenchDir0/ThroughputBench0", null);
    String b = stockLine("create", run + "ThroughputBenchDir0/ThroughputBench1", null);
    String other = stockLine("mkdirs", "/nnbench/nnaudit/1/open", null);
    // Oldest first: .3 (plain, and its complete .gz beside it, as between a compression's rename and delete),
    // .2 (compressed), .1 (plain), then the live file.
    append(new File(dir, "nnaudit-audit.log.3"), a, other);
    gzip(new File(dir, "nnaudit-audit.log.3.gz"), a + other);
    gzip(new File(dir, "nnaudit-audit.log.2.gz"), b + a);
    append(new File(dir, "nnaudit-audit.log.1"), other, b);
    append(audit, a, a);
    // Not part of the trail: a digest and a compression's temporary file.
    append(new File(dir, "nnaudit-audit.log.2.seals"), a);
    append(new File(dir, "nnaudit-audit.log.compressing-1"), a);
    String path = audit.getPath();
    long all = (a + other + b + a + other + b + a + a).getBytes(StandardCharsets.UTF_8).length;
    assertEquals(all, AuditRecords.trailPosition(path));
    assertEquals(6, AuditRecords.countTrailOnceSettled(path, 0, "create", run)[0]);
    // From the middle of .2.gz: its second record, .1's and the live file's.
    long inside = (a + other + b).getBytes(StandardCharsets.UTF_8).length;
    assertEquals(4, AuditRecords.countTrailOnceSettled(path, inside, "create", run)[0]);
    assertFalse(AuditRecords.compressedAll(path));
    // .3.gz is not counted as compressed while its plain file is there.
    assertEquals((b + a).getBytes(StandardCharsets.UTF_8).length, AuditRecords.compressedBytes(path));
  }

  private static void gzip(File f, String content) throws IOException {
    try (java.util.zip.GZIPOutputStream out = new java.util.zip.GZIPOutputStream(Files.newOutputStream(f.toPath()))) {
      out.write(content.getBytes(StandardCharsets.UTF_8));
    }
  }

  @Test
  void aFileShorterThanBeforeTheRunIsAnError() throws IOException {
    File audit = new File(dir, "nnaudit-audit.log");
    append(audit, stockLine("create", "/nnbench/nnaudit/1/create/ThroughputBenchDir0/ThroughputBench0", null));
    IOException e = assertThrows(IOException.class,
        () -> AuditRecords.countRecords(audit, audit.length() + 1, "create", "/nnbench/nnaudit/1/create/"));
    assertTrue(e.getMessage().contains("shorter"), e.getMessage());
  }

  private static ResultCell cell(long ops, long records, double... opsPerSec) {
    ResultCell c = new ResultCell();
    c.ops = ops;
    c.records = records;
    for (double d : opsPerSec) {
      c.opsPerSec.add(d);
    }
    return c;
  }

  @Test
  void theTableGivesEachVariantsMeanItsRatioToOffAndTheRecordsCheck() {
    Map<String, ResultCell> cells = new LinkedHashMap<>();
    cells.put(ResultCell.key("off", "create"), cell(0, 0, 1000, 1200));
    cells.put(ResultCell.key("stock", "create"), cell(45000, 45000, 900, 1000));
    cells.put(ResultCell.key("nnaudit", "create"), cell(45000, 44990, 1050, 1150));
    List<String> lines = NnBenchReport.table(Arrays.asList("off", "stock", "nnaudit"), Arrays.asList("create"), cells);

    assertEquals(2, lines.size());
    List<String> head = Arrays.asList(lines.get(0).trim().split("\\s{2,}"));
    List<String> row = Arrays.asList(lines.get(1).trim().split("\\s{2,}"));
    assertEquals(Arrays.asList("op", "off ops/s", "stock ops/s", "x off", "nnaudit ops/s", "x off",
        "stock records==ops", "nnaudit records==ops"), head);
    assertEquals(Arrays.asList("create", "1100", "950", "0.86", "1100", "1.00", "45000/45000 yes",
        "44990/45000 NO"), row);
    assertEquals(lines.get(0).length(), lines.get(1).length(), "columns line up");
  }

  @Test
  void withoutOffThereIsNoRatio() {
    Map<String, ResultCell> cells = new LinkedHashMap<>();
    cells.put(ResultCell.key("nnaudit", "fileStatus"), cell(10, 10, 500, 700));
    List<String> lines = NnBenchReport.table(Arrays.asList("nnaudit"), Arrays.asList("fileStatus"), cells);
    assertEquals(Arrays.asList("fileStatus", "600", "10/10 yes"), Arrays.asList(lines.get(1).trim().split("\\s{2,}")));
  }

  @Test
  void theSpreadIsHowFarThePassesOfOneCellWereApart() {
    ResultCell a = cell(0, 0, 900, 1100);
    assertEquals(0.2, a.spread(), 1e-9);
    assertEquals(0.2, NnBenchReport.maxSpread(Arrays.asList(cell(0, 0, 1000, 1000), a, cell(0, 0, 100, 105))), 1e-9);
    assertEquals(0.0, cell(0, 0).spread());
    assertFalse(cell(5, 4).recordsMatch());
    assertTrue(cell(5, 5).recordsMatch());
  }

  @Test
  void optionsKeepTheirDefaultsAndRefuseWhatCannotRun() {
    NnBenchOptions o = NnBenchOptions.parse();
    assertEquals(Arrays.asList("create", "fileStatus"), o.ops);
    assertEquals(Arrays.asList("off", "stock", "nnaudit"), o.variants);
    assertEquals(16, o.threads);
    assertEquals(20_000, o.files);
    assertEquals("BLOCK", o.policy);

    NnBenchOptions p = NnBenchOptions.parse("--variants", "nnaudit,off", "--ops", "mkdirs", "--threads", "4",
        "--files", "100", "--policy", "DROP");
    assertEquals(Arrays.asList("nnaudit", "off"), p.variants);
    assertEquals(Arrays.asList("mkdirs"), p.ops);
    assertEquals(4, p.threads);
    assertEquals(100, p.files);
    assertEquals("DROP", p.policy);

    NnBenchOptions k = NnBenchOptions.parse("--broker-classpath", "broker.classpath");
    assertEquals(Arrays.asList("off", "stock", "nnaudit", "nnaudit+kafka"), k.variants, "--kafka adds the fourth");
    assertEquals(Arrays.asList("nnaudit+kafka"),
        NnBenchOptions.parse("--variants", "nnaudit+kafka", "--broker-classpath", "b").variants);

    for (String[] bad : new String[][] {{"--variants", "async"}, {"--variants", "off,off"}, {"--ops", "append"},
        {"--threads", "0"}, {"--files", "many"}, {"--files"}, {"--repeats", "3"}, {"--variants", "nnaudit+kafka"}}) {
      assertThrows(IllegalArgumentException.class, () -> NnBenchOptions.parse(bad), Arrays.toString(bad));
    }
  }
}
