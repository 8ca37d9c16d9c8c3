package io.nnaudit;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A command of the unpacked operator tarball, run as an operator runs it: a bare environment, nothing of Hadoop. */
public final class TarballCommand {
  private TarballCommand() {
  }

  /** What a command printed (stdout and stderr together) and its exit code. */
  public static final class Result {
    public final int exit;
    public final String output;

    Result(int exit, String output) {
      this.exit = exit;
      this.output = output;
    }
  }

  /** Runs a command in {@code cwd} with PATH, JAVA_HOME and nothing else; at most two minutes. */
  public static Result run(Path cwd, String... cmd) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(new ArrayList<>(Arrays.asList(cmd))).directory(cwd.toFile())
        .redirectErrorStream(true);
    pb.environment().clear();
    pb.environment().put("PATH", "/usr/bin:/bin");
    pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
    Process p = pb.start();
    byte[] out = p.getInputStream().readAllBytes();
    assertTrue(p.waitFor(120, TimeUnit.SECONDS), "finished: " + List.of(cmd));
    return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
  }
}
