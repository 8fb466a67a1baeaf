package dev.tally.runtime.cli;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Help.Ansi;
import picocli.CommandLine.MissingParameterException;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * Parses and runs a picocli command tree the same way for every Tally command: {@code --help}
 * prints the usage to {@code out} (exit code 0); a bad command line, or a {@link
 * ParameterException} the command throws (e.g. from {@link ConfigArguments#load}), prints the
 * problem and the usage to {@code err} without a stack trace ({@link #USAGE_ERROR}).
 *
 * <p>Unlike {@link CommandLine#execute}, any other exception of the command propagates to the
 * caller unchanged: {@code flink run} reports a failed job from the exception {@code main} throws.
 */
public final class CommandLines {

  /** Exit code of a bad command line or configuration: nothing was started. */
  public static final int USAGE_ERROR = 2;

  // Fixed, so the help shown equals the help in the docs whatever the terminal.
  private static final int USAGE_WIDTH = 100;

  private CommandLines() {}

  /**
   * Parses {@code args} for {@code line} and its subcommands, then calls the chosen command, a
   * {@code Callable<Integer>} returning its exit code. Help and problems go to {@code terminal}.
   *
   * @throws Exception whatever the command throws, except a {@link ParameterException}
   */
  public static int execute(CommandLine line, String[] args, Terminal terminal) throws Exception {
    PrintStream out = terminal.out();
    PrintStream err = terminal.err();
    // picocli writes to a PrintWriter; text goes through a buffer so that it reaches out and err
    // in their own encoding, in order with what the command prints itself.
    StringWriter help = new StringWriter();
    layOut(line);
    line.setOut(new PrintWriter(help))
        // Written --name VALUE, in the help as on the command line; --name=VALUE is not accepted.
        .setSeparator(" ")
        .setColorScheme(CommandLine.Help.defaultColorScheme(Ansi.OFF))
        .setUsageHelpWidth(USAGE_WIDTH)
        // A later --config or --web-port replaces an earlier one, as scripts that append
        // options rely on.
        .setOverwrittenOptionsAllowed(true);
    try {
      ParseResult parsed = line.parseArgs(args);
      Integer code = CommandLine.executeHelpRequest(parsed);
      if (code != null) {
        out.print(help);
        out.flush();
        return code;
      }
      return (Integer) chosen(parsed).call();
    } catch (ParameterException thrown) {
      ParameterException e = unknownFirst(thrown);
      StringWriter suggestions = new StringWriter();
      UnmatchedArgumentException.printSuggestions(e, new PrintWriter(suggestions, true));
      err.println(e.getMessage());
      err.print(suggestions);
      err.println();
      err.print(e.getCommandLine().getUsageMessage());
      err.flush();
      return USAGE_ERROR;
    }
  }

  /**
   * The problem to name. picocli checks required options before it reports arguments it does not
   * know, so {@code sql --flie x.sql} would say that --file is missing: the unknown --flie is what
   * the user needs to hear about.
   */
  private static ParameterException unknownFirst(ParameterException e) {
    List<String> unknown = e.getCommandLine().getUnmatchedArguments();
    return e instanceof MissingParameterException && !unknown.isEmpty()
        ? new UnmatchedArgumentException(e.getCommandLine(), unknown)
        : e;
  }

  /**
   * The help's layout, the same for every command of the tree: options in the order their class
   * declares them, each part under its heading.
   */
  private static void layOut(CommandLine line) {
    line.getCommandSpec()
        .usageMessage()
        .sortOptions(false)
        .sortSynopsis(false)
        .descriptionHeading("%n")
        .optionListHeading("%nOptions:%n")
        .commandListHeading("%nCommands:%n");
    line.getSubcommands().values().forEach(CommandLines::layOut);
  }

  /**
   * The innermost command given. A parent's options before a subcommand are refused rather than
   * ignored: {@code TallyMain --config a.yaml sql ...} must not run without {@code a.yaml}.
   */
  private static Callable<?> chosen(ParseResult parsed) {
    ParseResult command = parsed;
    while (command.hasSubcommand()) {
      ParseResult sub = command.subcommand();
      List<OptionSpec> before = command.matchedOptions();
      if (!before.isEmpty()) {
        throw new ParameterException(
            sub.commandSpec().commandLine(),
            before.get(0).longestName()
                + " given before '"
                + sub.commandSpec().name()
                + "': the options of "
                + sub.commandSpec().qualifiedName()
                + " go after '"
                + sub.commandSpec().name()
                + "'");
      }
      command = sub;
    }
    if (command.commandSpec().userObject() instanceof Callable<?> callable) {
      return callable;
    }
    throw new IllegalStateException(
        command.commandSpec().qualifiedName() + " is not a Callable<Integer>");
  }
}
