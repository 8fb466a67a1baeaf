package dev.tally.stack;

import picocli.CommandLine.Option;

/**
 * The {@code -h} / {@code --help} option of every tool's command line, a picocli mixin: picocli's
 * standard one would add a {@code --version} that the tools have nothing to answer with.
 */
public final class HelpOption {

  @Option(
      names = {"-h", "--help"},
      usageHelp = true,
      description = "Show this help message and exit.")
  private boolean help;
}
