package io.nnaudit.verify;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Reads the arguments of {@code nnaudit verify} and {@code nnaudit verify-stream}, in order: the command's name
 * when it comes first, {@code -h} or {@code --help}, flags, options that take the next argument as their value,
 * and operands, each handed to what the command gave for it. What does not read is a usage error, said on one
 * line ({@code nnaudit COMMAND: WHY}) with the usage after it.
 */
public final class ArgumentReader {
  /** What {@link #read} returns when every argument was read: the command goes on. */
  public static final int READ = -1;

  private final String command;
  private final String usageText;
  private final Map<String, Runnable> flags = new HashMap<>();
  private final Map<String, Consumer<String>> options = new HashMap<>();
  private Consumer<String> operands;

  /** For {@code nnaudit command}, whose usage is {@code usageText}. */
  public ArgumentReader(String command, String usageText) {
    this.command = command;
    this.usageText = usageText;
  }

  /** A flag: an option that takes no value. */
  public ArgumentReader flag(String name, Runnable given) {
    flags.put(name, given);
    return this;
  }

  /** An option that takes the next argument as its value, handed to {@code given} each time it is given. */
  public ArgumentReader option(String name, Consumer<String> given) {
    options.put(name, given);
    return this;
  }

  /** What takes the arguments that are not options; without it, such an argument is a usage error. */
  public ArgumentReader operands(Consumer<String> given) {
    operands = given;
    return this;
  }

  /**
   * Reads {@code args}, handing each on; returns {@link #READ}, or the exit code when the command is done: 0
   * after printing the usage on {@code out} for {@code -h} or {@code --help}, {@link VerifyCommand#USAGE} after
   * saying on {@code err} what does not read. What a handler throws (a value that does not parse) goes to the
   * caller, the arguments after it unread.
   */
  public int read(String[] args, PrintStream out, PrintStream err) {
    List<String> argv = new ArrayList<>(Arrays.asList(args));
    if (!argv.isEmpty() && argv.get(0).equals(command)) {
      argv.remove(0);
    }
    for (int i = 0; i < argv.size(); i++) {
      String a = argv.get(i);
      if (a.equals("-h") || a.equals("--help")) {
        out.println(usageText);
        return 0;
      }
      Runnable flag = flags.get(a);
      if (flag != null) {
        flag.run();
      } else if (!a.startsWith("--")) {
        if (operands == null) {
          return usage(err, "unexpected argument " + a);
        }
        operands.accept(a);
      } else if (i + 1 >= argv.size()) {
        return usage(err, a + " needs a value");
      } else {
        String v = argv.get(++i);
        Consumer<String> option = options.get(a);
        if (option == null) {
          return usage(err, "unknown option " + a);
        }
        option.accept(v);
      }
    }
    return READ;
  }

  /** Says on {@code err} why the command line does not do, with the usage; returns {@link VerifyCommand#USAGE}. */
  public int usage(PrintStream err, String why) {
    err.println("nnaudit " + command + ": " + why + "\n" + usageText);
    return VerifyCommand.USAGE;
  }
}
