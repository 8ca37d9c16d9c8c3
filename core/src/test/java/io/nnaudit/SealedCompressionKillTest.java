package io.nnaudit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.seal.SealKeyFixture;
import io.nnaudit.seal.SealKeys;
import io.nnaudit.verify.Verification;
import io.nnaudit.verify.VerifyReport;

/**
 * A real NameNode process sealing its audit file and compressing its rotated files (64 KB each, so that under 16
 * clients calling mkdirs it rotates and compresses all the time), killed with SIGKILL at a random moment
 * {@value #KILLS} times (once a rotation or a compression is seen under way, in turn), each time started again on the
 * same audit directory, and at last stopped with SIGTERM. After each kill, before the next start, verify finds no
 * change (exit 0 or 2, never 1) and every acknowledged mkdirs has a record; after each start, nothing the kill
 * left is there twice: no temporary copy of the killed run, no file both plain and compressed. At the end the
 * trail verifies with the killed runs' tails accepted as sealed late (exit 0), some rotated files are compressed,
 * and every acknowledged mkdirs has exactly one record across the live file, the plain rotated files and the
 * gunzipped ones.
 */
class SealedCompressionKillTest {
  private static final int KILLS = 4;
  private static final int CLIENTS = 16;
  /** Acknowledged operations of a run before its signal: from a few to several rotations' worth. */
  private static final int MIN_ACKED = 300;
  private static final int MORE_ACKED = 1500;
  private static final long LOAD_TIMEOUT_MS = 120_000;
  /** How long a run may wait to catch a rotation or compression under way before it is killed at its moment anyway. */
  private static final long COMPRESSION_WAIT_MS = 5_000;
  /** A complete mkdirs record of the stock line: a record cut short by a kill is no record of its path. */
  private static final Pattern MKDIRS = Pattern.compile("\tcmd=mkdirs\tsrc=([^\t]*)\tdst=[^\t]*\tperm=[^\t]*"
      + "\tproto=rpc(?:\t.*)?");
  private static final Pattern MEMBER = Pattern.compile("audit\\.log(?:\\.([0-9]+)(\\.gz)?)?");
  private static final Pattern TEMP = Pattern.compile("audit\\.log\\.compressing-([0-9]+)");
  /** The live file's name as a rotation moves it: a rotation under way. */
  private static final Pattern ROTATING = Pattern.compile("audit\\.log\\.rotating-[0-9]+(?:\\.seals)?");

  /** The signing key of the NameNode's trail. */
  @RegisterExtension
  static final SealKeyFixture ec = new SealKeyFixture();

  @TempDir
  Path dir;

  @Test
  void killsMidCompressionAndRotationLoseNothingAndLeaveNoFileTwice() throws Exception {
    Configuration conf = SealKeys.enable(new Configuration(false), ec);
    conf.setInt(NnauditConfigKeys.SEAL_INTERVAL_RECORDS_KEY, 200);
    conf.set(NnauditConfigKeys.FILE_MAX_SIZE_KEY, "64k");
    conf.setInt(NnauditConfigKeys.FILE_MAX_BACKUPS_KEY, 10_000); // keep every file: each acknowledged record is looked for
    conf.set(NnauditConfigKeys.FILE_COMPRESS_KEY, "gzip");
    Map<String, String> site = new HashMap<>();
    for (Map.Entry<String, String> e : conf) {
      site.put(e.getKey(), e.getValue());
    }
    File base = dir.resolve("nn").toFile();
    File audit = new File(base, "audit/audit.log");
    Random random = new Random();
    Set<String> acked = new HashSet<>();
    List<String> runs = new ArrayList<>();
    Leftovers left = null;
    for (int run = 1; run <= KILLS + 1; run++) {
      boolean last = run == KILLS + 1;
      long t0 = System.nanoTime();
      long startedAt = System.currentTimeMillis();
      String outcome;
      try (RealNameNodeProcess nn = RealNameNodeProcess.start(base, site)) {
        if (left != null) {
          left.assertCleanedBy(audit, startedAt, "start " + run);
        }
        MkdirsLoad load = new MkdirsLoad(nn.uri(), CLIENTS, "/kill/run" + run).start();
        String caught = "";
        int status;
        try {
          int want = MIN_ACKED + random.nextInt(MORE_ACKED);
          assertTrue(load.awaitAcked(want, LOAD_TIMEOUT_MS), "run " + run + ": the load ran: " + load.ackedCount()
              + "; " + load.endings());
          if (!last) {
            Pattern wanted = run % 2 == 0 ? TEMP : ROTATING;
            if (awaitName(audit, wanted, COMPRESSION_WAIT_MS)) {
              caught = run % 2 == 0 ? " mid-compression" : " mid-rotation";
            }
            Thread.sleep(random.nextInt(run % 2 == 0 ? 10 : 2)); // then a random moment of it
          }
          status = last ? nn.sigterm() : nn.sigkill();
        } finally {
          load.stop();
        }
        acked.addAll(load.acked());
        outcome = "run " + run + ": " + (last ? "SIGTERM" : "SIGKILL") + caught
            + " after " + load.ackedCount() + " acknowledged, exit status " + status;
      }
      String[] names = sortedNames(audit);
      left = Leftovers.of(audit);
      outcome += ", left " + left + ", " + names.length + " names, " + (System.nanoTime() - t0) / 1_000_000 + " ms";
      runs.add(outcome);
      System.out.println(outcome);
      String context = String.join("\n", runs) + "\nfiles: " + Arrays.toString(names);

      Records records = Records.read(audit);
      assertEquals(0, records.missing(acked), "every acknowledged mkdirs has its record: " + context);
      if (!last) {
        Verification.Run killed = Verification.withCert(ec, audit.getParent());
        System.out.println("run " + run + ": verify after the kill exits " + killed.code + ": "
            + killed.output.split("\n")[0]);
        assertTrue(killed.code == VerifyReport.VERIFIED || killed.code == VerifyReport.UNSEALED, "a kill is no "
            + "change, and what it left can be read: " + context + "\n" + killed);
      }
    }

    String[] names = sortedNames(audit);
    String context = String.join("\n", runs) + "\nfiles: " + Arrays.toString(names);
    Verification.Run accepted = Verification.withCert(ec, "--accept-late", audit.getParent());
    assertEquals(VerifyReport.VERIFIED, accepted.code, context + "\n" + accepted);
    Records records = Records.read(audit);
    assertTrue(records.compressed > 0, "some rotated files are compressed: " + context);
    assertEquals(0, records.missing(acked), "every acknowledged mkdirs has its record: " + context);
    assertEquals(new ArrayList<String>(), records.twice(acked), "no acknowledged mkdirs has two records: " + context);
    System.out.println("SealedCompressionKillTest: " + acked.size() + " acknowledged mkdirs, " + records.members
        + " files (" + records.compressed + " compressed), verify --accept-late: "
        + accepted.output.split("\n")[0]);
  }

  /**
   * Whether a name {@code wanted} matches is seen beside the audit file (a compression's temporary copy, a rotation's
   * staged name), listed every millisecond until {@code timeoutMs}.
   */
  private static boolean awaitName(File audit, Pattern wanted, long timeoutMs) throws InterruptedException {
    long deadline = System.currentTimeMillis() + timeoutMs;
    while (System.currentTimeMillis() < deadline) {
      String[] names = audit.getParentFile().list();
      for (String n : names == null ? new String[0] : names) {
        if (wanted.matcher(n).matches()) {
          return true;
        }
      }
      Thread.sleep(1); // the poll interval of this bounded wait
    }
    return false;
  }

  private static String[] sortedNames(File audit) {
    String[] names = audit.getParentFile().list();
    Arrays.sort(names);
    return names;
  }

  /** What a stop left that the next start must clean: compressions' temporary copies, files both plain and compressed. */
  private static final class Leftovers {
    final List<String> temps = new ArrayList<>();
    final List<Integer> pairs = new ArrayList<>();
    /** Names of a rotation the stop interrupted (only reported: SealedRotationCrashTest checks those). */
    final List<String> rotating = new ArrayList<>();

    static Leftovers of(File audit) {
      Leftovers l = new Leftovers();
      Set<String> names = new HashSet<>(Arrays.asList(audit.getParentFile().list()));
      for (String n : names) {
        if (TEMP.matcher(n).matches()) {
          l.temps.add(n);
        }
        if (n.contains(".rotating-")) {
          l.rotating.add(n);
        }
        Matcher m = MEMBER.matcher(n);
        if (m.matches() && m.group(1) != null && m.group(2) == null && names.contains(n + ".gz")) {
          l.pairs.add(Integer.parseInt(m.group(1)));
        }
      }
      return l;
    }

    /**
     * After a start (which began at {@code startedAt}, before any load): none of the temporary copies from before
     * the start is there, and no file of a pair is there twice.
     */
    void assertCleanedBy(File audit, long startedAt, String what) {
      Leftovers now = of(audit);
      for (String t : now.temps) {
        Matcher m = TEMP.matcher(t);
        assertTrue(m.matches() && Long.parseLong(m.group(1)) >= startedAt && !temps.contains(t), what
            + ": a temporary copy the stop left is still there: " + t + "; left " + this + ", now " + now);
      }
      for (int i : pairs) {
        assertTrue(!now.pairs.contains(i), what + ": file " + i + " still there plain and compressed: left " + this
            + ", now " + now);
      }
    }

    @Override
    public String toString() {
      return temps.size() + " temporary copies " + temps + ", " + pairs.size() + " files plain and compressed "
          + pairs + (rotating.isEmpty() ? "" : ", a rotation stopped half-way " + rotating);
    }
  }

  /**
   * The complete mkdirs records of the trail, each member once: a pair counts once, its two copies compared; a
   * live file a kill left under its rotation's staged name is read there.
   */
  private static final class Records {
    final Map<String, Integer> counts = new HashMap<>();
    int members;
    int compressed;

    static Records read(File audit) throws Exception {
      Records r = new Records();
      TreeMap<Integer, List<String>> byIndex = new TreeMap<>();
      for (String n : audit.getParentFile().list()) {
        Matcher m = MEMBER.matcher(n);
        if (m.matches()) {
          byIndex.computeIfAbsent(m.group(1) == null ? 0 : Integer.parseInt(m.group(1)), k -> new ArrayList<>())
              .add(n);
        } else if (ROTATING.matcher(n).matches() && !n.endsWith(".seals")) {
          // a rotation a kill stopped half-way: the live file on its way to .1, which the next start names so
          byIndex.computeIfAbsent(-1, k -> new ArrayList<>()).add(n);
        }
      }
      for (List<String> copies : byIndex.values()) {
        byte[] member = null;
        for (String n : copies) {
          Path p = new File(audit.getParentFile(), n).toPath();
          byte[] b = n.endsWith(".gz") ? CompressedTrail.gunzip(p) : Files.readAllBytes(p);
          if (n.endsWith(".gz")) {
            r.compressed++;
          }
          if (member != null) {
            assertArrayEquals(member, b, "the plain and compressed copies of " + copies + " hold the same bytes");
          }
          member = b;
        }
        r.members++;
        r.scan(new String(member, StandardCharsets.UTF_8));
      }
      return r;
    }

    private void scan(String text) {
      int end = text.lastIndexOf('\n') + 1; // a last line without its newline was cut short by a kill
      for (String line : text.substring(0, end).split("\n")) {
        int at = line.indexOf("\tcmd=mkdirs\tsrc=");
        if (at >= 0) {
          Matcher m = MKDIRS.matcher(line.substring(at));
          if (m.matches()) {
            counts.merge(m.group(1), 1, Integer::sum);
          }
        }
      }
    }

    long missing(Set<String> acked) {
      return acked.stream().filter(p -> !counts.containsKey(p)).count();
    }

    List<String> twice(Set<String> acked) {
      List<String> out = new ArrayList<>();
      for (String p : acked) {
        if (counts.getOrDefault(p, 0) > 1) {
          out.add(p + " x" + counts.get(p));
        }
      }
      return out;
    }
  }
}
