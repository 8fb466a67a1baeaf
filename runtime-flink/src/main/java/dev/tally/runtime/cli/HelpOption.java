package dev.tally.runtime.cli;

import picocli.CommandLine.Option;

/** {@code --help} of every Tally command, as a picocli mixin; {@link CommandLines} answers it. */
public final class HelpOption {

  @Option(names = "--help", usageHelp = true, description = "Show this help and exit.")
  private boolean help;
}
