package io.nnaudit.verify;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Collections;

import io.nnaudit.seal.SealKey;
import io.nnaudit.seal.SealKeys;

/**
 * {@code nnaudit verify} as the tests run it: the command in this JVM, with its exit code and what it printed
 * (standard output and error in one, in the order printed); or the report of one trail. Stateless.
 */
public final class Verification {
  /** One run of the command: its exit code and what it printed. Immutable. */
  public static final class Run {
    public final int code;
    public final String output;

    Run(int code, String output) {
      this.code = code;
      this.output = output;
    }

    @Override
    public String toString() {
      return "exit " + code + ":\n" + output;
    }
  }

  private Verification() {
  }

  /** {@code nnaudit verify ARGS...}. */
  public static Run command(String... args) {
    return withPassword(null, args);
  }

  /** {@code nnaudit verify --cert CERT ARGS...}, CERT the certificate of {@code key}. */
  public static Run withCert(SealKeys.KeyFiles key, String... args) {
    String[] argv = new String[args.length + 2];
    argv[0] = "--cert";
    argv[1] = key.certificate.toString();
    System.arraycopy(args, 0, argv, 2, args.length);
    return command(argv);
  }

  /** {@code nnaudit verify ARGS...} with {@code hmacPassword} as the keystore's password (null: none set). */
  public static Run withPassword(String hmacPassword, String... args) {
    String[] argv = new String[args.length + 1];
    argv[0] = "verify";
    System.arraycopy(args, 0, argv, 1, args.length);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrintStream p = new PrintStream(out, true);
    int code = VerifyCommand.run(argv, p, p, hmacPassword);
    return new Run(code, out.toString(StandardCharsets.UTF_8));
  }

  /** The report of the trail whose live file is {@code live}, its seals checked with {@code key}. */
  public static VerifyReport report(SealKey key, Path live) {
    return report(key, live, false);
  }

  /** As {@link #report(SealKey, Path)}; {@code acceptLate}: as {@code verify --accept-late}. */
  public static VerifyReport report(SealKey key, Path live, boolean acceptLate) {
    try {
      return new TrailVerifier(Collections.singletonList(key), null, acceptLate).verify(live);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
