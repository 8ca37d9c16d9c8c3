package io.nnaudit.kafka;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import io.nnaudit.kafka.verify.VerifyStreamCommand;

/** One run of {@code nnaudit verify-stream} in the test's JVM: its exit code and all it printed. Immutable. */
final class VerifyStreamRun {
  final int code;
  final String output;

  private VerifyStreamRun(int code, String output) {
    this.code = code;
    this.output = output;
  }

  /** Runs it with {@code args}, and prints what it said for the test's log. */
  static VerifyStreamRun of(List<String> args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrintStream p = new PrintStream(out, true, StandardCharsets.UTF_8);
    int code = VerifyStreamCommand.run(args.toArray(new String[0]), p, p);
    String text = out.toString(StandardCharsets.UTF_8);
    System.out.println("verify-stream " + String.join(" ", args) + " -> " + code + "\n" + text);
    return new VerifyStreamRun(code, text);
  }
}
