package io.nnaudit.kafka;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** Prometheus's own checker, {@code promtool} on the PATH (Debian's {@code prometheus} package). */
final class Promtool {
  private static final long TIMEOUT_S = 120;

  private Promtool() {
  }

  /** What one run of promtool said. */
  static final class Result {
    final int code;
    final String output;

    Result(int code, String output) {
      this.code = code;
      this.output = output;
    }

    @Override
    public String toString() {
      return "exit " + code + ":\n" + output;
    }
  }

  /** {@code promtool check rules FILE}: the rules parse, their expressions are valid PromQL. */
  static Result checkRules(Path rules) throws Exception {
    return run("check", "rules", rules.toString());
  }

  /** {@code promtool test rules FILE}: the unit tests of a promtool test file. */
  static Result testRules(Path testFile) throws Exception {
    return run("test", "rules", testFile.toString());
  }

  private static Result run(String... args) throws Exception {
    String[] cmd = new String[args.length + 1];
    cmd[0] = "promtool";
    System.arraycopy(args, 0, cmd, 1, args.length);
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (InputStream in = p.getInputStream()) {
      byte[] b = new byte[8192];
      for (int n; (n = in.read(b)) > 0; ) {
        out.write(b, 0, n);
      }
    }
    if (!p.waitFor(TIMEOUT_S, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("promtool " + String.join(" ", args) + " did not end in " + TIMEOUT_S + " s");
    }
    return new Result(p.exitValue(), new String(out.toByteArray(), StandardCharsets.UTF_8));
  }
}
