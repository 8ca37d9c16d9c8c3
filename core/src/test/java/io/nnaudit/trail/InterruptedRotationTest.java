package io.nnaudit.trail;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.seal.SealKeyFixture;
import io.nnaudit.seal.SealKeys;
import io.nnaudit.settings.NnauditSettings;
import io.nnaudit.sink.SinkContext;
import io.nnaudit.sink.file.ChannelFactory;
import io.nnaudit.sink.file.RollingFileSink;
import io.nnaudit.verify.Verification;
import io.nnaudit.verify.VerifyReport;

/**
 * A sealed rotation stopped after each of its steps, as a kill leaves it. The sink's rotation is a sequence of
 * renames (see {@code sink.file.Rotation#rotate}) and then a new live file; the files as they are after a real
 * rotation's renames, just before its new live file is created, are caught by the channel factory, and each
 * earlier step is had by undoing the later renames. For every such state: verify, before anything is started
 * again, finds no change (the interrupted rotation is read as finished); a sink started on the files finishes
 * the rotation (no temporary name left, nothing set aside to delete kept), goes on with the chain, and then the
 * trail verifies with every record there, in order, none twice.
 */
class InterruptedRotationTest {
  private static final Pattern NUMBER = Pattern.compile("record (\\d{6}) ");

  @RegisterExtension
  static final SealKeyFixture ec = new SealKeyFixture();

  @TempDir
  Path dir;

  private int next;

  private SinkContext context(Path live) throws Exception {
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.FILE_PATH_KEY, live.toString());
    c.set(NnauditConfigKeys.FILE_MAX_SIZE_KEY, "1k");
    c.setInt(NnauditConfigKeys.FILE_MAX_BACKUPS_KEY, 3);
    c.setInt(NnauditConfigKeys.SEAL_INTERVAL_RECORDS_KEY, 5);
    SealKeys.enable(c, ec);
    return NnauditSettings.fromConf(c).sinkContext();
  }

  private void write(RollingFileSink sink, int records) throws Exception {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < records; i++) {
      b.append(String.format("record %06d %s%n", next++, "z".repeat(50)));
    }
    sink.write(ByteBuffer.wrap(b.toString().getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void aRotationStoppedAfterAnyStepIsFinishedAtTheNextStartAndVerifies() throws Exception {
    Path written = Files.createDirectories(dir.resolve("written"));
    Path live = written.resolve("audit.log");
    Path caught = Files.createDirectories(dir.resolve("caught"));
    boolean[] armed = {false};
    ChannelFactory catching = (p, options, attrs) -> {
      if (armed[0] && p.equals(live) && options.contains(StandardOpenOption.CREATE_NEW)) {
        armed[0] = false;
        copy(written, caught); // every rename done, the new live file not yet created
      }
      return FileChannel.open(p, options, attrs);
    };
    RollingFileSink sink = new RollingFileSink(context(live), catching, () -> System.nanoTime() / 1_000_000);
    while (!Files.exists(TrailNames.backup(live, 3))) {
      write(sink, 2);
    }
    armed[0] = true;
    while (armed[0]) {
      write(sink, 2); // up to the next rotation, which expires audit.log.3
    }
    int writtenBefore = next - 2; // the write that rotated is not in the caught files
    sink.close();

    String stamp = stampOf(caught);
    List<Path[]> steps = rotationSteps(caught.resolve("audit.log"), stamp);
    for (int done = 0; done <= steps.size() + 1; done++) {
      next = writtenBefore;
      Path at = Files.createDirectories(dir.resolve("after-" + done));
      copy(caught, at);
      for (int k = steps.size() - 1; k >= done; k--) { // undo the steps not yet done
        Path[] step = steps.get(k);
        Files.move(at.resolve(step[1].getFileName()), at.resolve(step[0].getFileName()));
      }
      Path l = at.resolve("audit.log");
      if (done == steps.size() + 1) {
        Files.createFile(l); // the new live file created, its first seal not yet written
      }
      String state = "stopped after " + Math.min(done, steps.size()) + " of " + steps.size() + " renames"
          + (done > steps.size() ? " and the new file's creation" : "") + ": " + names(at);

      VerifyReport killed = Verification.report(ec.checkingKey(), l);
      assertNotEquals(VerifyReport.TAMPERED, killed.exitCode(), state + "\n" + String.join("\n", killed.lines()));

      RollingFileSink again = new RollingFileSink(context(l));
      for (int i = 0; i < 4; i++) {
        write(again, 2);
      }
      again.close();
      VerifyReport after = Verification.report(ec.checkingKey(), l);
      if (done < steps.size()) {
        assertEquals(VerifyReport.VERIFIED, after.exitCode(), state + "\n" + String.join("\n", after.lines()));
      } else {
        // killed after the last rename: the new file was begun by the start, not by the rotation, which verify
        // cannot tell from that file and its digest deleted: sealed late, not a change
        assertEquals(VerifyReport.UNSEALED, after.exitCode(), state + "\n" + String.join("\n", after.lines()));
        assertTrue(String.join("\n", after.lines()).contains("was begun by the start at "), state + "\n"
            + String.join("\n", after.lines()));
      }
      String left = names(at);
      assertTrue(!left.contains("rotating") && !left.contains("expired"), state + " -> " + left);
      List<Integer> numbers = recordNumbers(l);
      for (int i = 1; i < numbers.size(); i++) {
        assertEquals(numbers.get(i - 1) + 1, (int) numbers.get(i), state + ": records in order, none missing or "
            + "twice, across the files " + left);
      }
      assertEquals(next - 1, (int) numbers.get(numbers.size() - 1), state);
      assertEquals(after.records(), numbers.size(), state);
    }
  }

  /** The stamp of the rotation the caught files are in the middle of: that of the backup set aside. */
  private static String stampOf(Path d) throws Exception {
    try (Stream<Path> s = Files.list(d)) {
      Matcher m = s.map(p -> Pattern.compile("audit\\.log\\.3\\.expired-(\\d+)").matcher(p.getFileName().toString()))
          .filter(Matcher::matches).findFirst().orElse(null);
      assertNotNull(m, "the caught rotation set audit.log.3 aside: " + names(d));
      return m.group(1);
    }
  }

  /** The renames of a rotation that keeps 3 backups of 3, in the order the sink makes them: each {from, to}. */
  private static List<Path[]> rotationSteps(Path live, String stamp) {
    Path staged = live.resolveSibling("audit.log.rotating-" + stamp);
    List<Path[]> steps = new ArrayList<>();
    pair(steps, live, staged);
    pair(steps, TrailNames.backup(live, 3), live.resolveSibling("audit.log.3.expired-" + stamp));
    pair(steps, TrailNames.backup(live, 2), TrailNames.backup(live, 3));
    pair(steps, TrailNames.backup(live, 1), TrailNames.backup(live, 2));
    pair(steps, staged, TrailNames.backup(live, 1));
    return steps;
  }

  /** A file's rename, then its digest's. */
  private static void pair(List<Path[]> steps, Path from, Path to) {
    steps.add(new Path[] {from, to});
    steps.add(new Path[] {TrailNames.digest(from), TrailNames.digest(to)});
  }

  private static List<Integer> recordNumbers(Path live) throws Exception {
    List<Integer> out = new ArrayList<>();
    for (int i = 10; i >= 0; i--) {
      Path f = i == 0 ? live : TrailNames.backup(live, i);
      if (!Files.exists(f)) {
        continue;
      }
      for (String line : Files.readAllLines(f)) {
        Matcher m = NUMBER.matcher(line);
        assertTrue(m.find(), line);
        out.add(Integer.parseInt(m.group(1)));
      }
    }
    return out;
  }

  private static void copy(Path from, Path to) throws java.io.IOException {
    try (Stream<Path> s = Files.list(from)) {
      for (Path p : s.collect(Collectors.toList())) {
        Files.copy(p, to.resolve(p.getFileName()), StandardCopyOption.REPLACE_EXISTING,
            StandardCopyOption.COPY_ATTRIBUTES);
      }
    }
  }

  private static String names(Path d) throws Exception {
    try (Stream<Path> s = Files.list(d)) {
      return s.map(p -> p.getFileName().toString()).sorted().collect(Collectors.joining(" "));
    }
  }
}
