package io.nnaudit;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A test main class run in its own JVM, with its output read line by line. */
public final class ChildJvm implements AutoCloseable {
  public final Process process;
  private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private final StringBuffer all = new StringBuffer();
  private final Thread reader;

  ChildJvm(Class<?> main, String... args) throws Exception {
    this(entry -> true, main, args);
  }

  /** A child whose classpath keeps only the entries {@code keep} accepts. */
  ChildJvm(java.util.function.Predicate<String> keep, Class<?> main, String... args) throws Exception {
    this(Arrays.asList("-Xmx1g", "--add-opens=java.base/java.lang=ALL-UNNAMED"), testClassPath(keep), main.getName(),
        args);
  }

  /** A child running {@code mainClass} with the given JVM options and classpath. */
  public ChildJvm(List<String> jvmOptions, String classPath, String mainClass, String... args) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(new File(System.getProperty("java.home"), "bin/java").getPath());
    cmd.addAll(jvmOptions);
    cmd.add("-cp");
    cmd.add(classPath);
    cmd.add(mainClass);
    cmd.addAll(Arrays.asList(args));
    process = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
          StandardCharsets.UTF_8))) {
        String l;
        while ((l = r.readLine()) != null) {
          all.append(l).append('\n');
          lines.add(l);
        }
      } catch (Exception ignored) {
        // the child died; its output so far is kept
      }
    }, "child-output");
    reader.setDaemon(true);
    reader.start();
  }

  /** The test classpath (as surefire gives it to the test JVM), keeping only the entries {@code keep} accepts. */
  public static String testClassPath(java.util.function.Predicate<String> keep) {
    String full = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    StringBuilder kept = new StringBuilder();
    for (String entry : full.split(File.pathSeparator)) {
      if (keep.test(entry)) {
        kept.append(kept.length() == 0 ? "" : File.pathSeparator).append(entry);
      }
    }
    return kept.toString();
  }

  /** Everything the child printed so far (stdout and stderr). */
  public String output() {
    return all.toString();
  }

  /** Waits for a line starting with {@code prefix} and returns it. */
  public String awaitLine(String prefix, long timeoutMs) throws InterruptedException {
    long deadline = System.currentTimeMillis() + timeoutMs;
    while (System.currentTimeMillis() < deadline) {
      String l = lines.poll(100, TimeUnit.MILLISECONDS);
      if (l != null && l.startsWith(prefix)) {
        return l;
      }
      if (l == null && !process.isAlive() && lines.isEmpty()) {
        break;
      }
    }
    throw new AssertionError("no '" + prefix + "' line from the child; its output:\n" + all);
  }

  /** Forgets the lines printed so far: the next {@link #awaitLine} sees only later ones. */
  public void skipPrinted() {
    lines.clear();
  }

  /** Whether the child still runs. */
  public boolean isAlive() {
    return process.isAlive();
  }

  /** Waits for the child to exit and returns all it printed. */
  public String awaitExit(long timeoutMs) throws InterruptedException {
    if (!process.waitFor(timeoutMs, TimeUnit.MILLISECONDS)) {
      throw new AssertionError("the child did not exit; its output:\n" + all);
    }
    reader.join(10_000); // the reader ends at the end of the output, which the exit closed
    return all.toString();
  }

  /** SIGKILL, as kill -9. */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(60, TimeUnit.SECONDS);
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      kill();
    }
  }
}
