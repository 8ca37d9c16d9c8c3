package io.nnaudit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The JVM shutdown hook, in a real separate JVM that calls System.exit with events still queued. */
class ShutdownHookTest {
  @TempDir
  Path dir;

  private String runChild(File audit, int events, long delayMs, boolean stall, long timeoutMs) throws Exception {
    return runJava(ShutdownDrainMain.class, audit.getPath(), String.valueOf(events), String.valueOf(delayMs),
        String.valueOf(stall), String.valueOf(timeoutMs));
  }

  private String runJava(Class<?> main, String... args) throws Exception {
    String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> cmd = new ArrayList<>();
    cmd.add(new File(System.getProperty("java.home"), "bin/java").getPath());
    cmd.add("--add-opens=java.base/java.lang=ALL-UNNAMED");
    cmd.add("-cp");
    cmd.add(cp);
    cmd.add(main.getName());
    cmd.addAll(java.util.Arrays.asList(args));
    File out = dir.resolve("child-" + System.nanoTime() + ".out").toFile();
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out).start();
    assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the child JVM exited");
    String output = new String(Files.readAllBytes(out.toPath()), StandardCharsets.UTF_8);
    assertEquals(0, p.exitValue(), output);
    return output;
  }

  @Test
  void queuedEventsAreWrittenBeforeTheJvmExits() throws Exception {
    File audit = dir.resolve("exit.log").toFile();
    int events = 2000;
    String output = runChild(audit, events, 50, false, 60_000);
    Matcher m = Pattern.compile("AT-EXIT accepted=(\\d+) written=(\\d+)").matcher(output);
    assertTrue(m.find(), output);
    assertEquals(events, Integer.parseInt(m.group(1)));
    assertTrue(Integer.parseInt(m.group(2)) < events, "events were still queued at exit: " + m.group());
    List<String> records = TestFiles.operationRecords(audit);
    assertEquals(events, records.size(), "every accepted event is in the file after exit");
    for (int i = 0; i < events; i++) {
      assertTrue(records.get(i).contains("\tsrc=/exit/" + i + "\t"), records.get(i));
    }
  }

  @Test
  void aStalledSinkCannotHoldTheJvmPastTheTimeout() throws Exception {
    File audit = dir.resolve("stalled.log").toFile();
    String output = runChild(audit, 50, 0, true, 500);
    assertTrue(output.contains("did not finish within 500 ms"), output);
    assertEquals(0, TestFiles.operationRecords(audit).size());
  }

  @Test
  void aNameNodeThatExitsWritesEveryAcknowledgedOperation() throws Exception {
    File audit = dir.resolve("nn-exit.log").toFile();
    int ops = 300;
    String output = runJava(NameNodeExitMain.class, dir.resolve("nn").toString(), audit.getPath(),
        String.valueOf(ops));
    Matcher m = Pattern.compile("ACKED (\\d+) written-at-exit=(\\d+)").matcher(output);
    assertTrue(m.find(), output);
    assertEquals(ops, Integer.parseInt(m.group(1)));
    assertTrue(Long.parseLong(m.group(2)) < ops, "records were still queued at exit: " + m.group());
    long mkdirs = TestFiles.operationRecords(audit).stream().filter(l -> l.contains("\tcmd=mkdirs\tsrc=/exit/d"))
        .count();
    assertEquals(ops, mkdirs, "every acknowledged mkdirs has its record after the NameNode JVM exited");
  }
}
