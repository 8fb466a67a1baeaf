package dev.tally.runtime.cli;

import dev.tally.runtime.config.ConfigSource;
import dev.tally.runtime.config.ConfigurationException;
import dev.tally.runtime.config.TallyConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code --config FILE} and {@code --set KEY=VALUE}, the options through which every Tally command
 * reads its configuration (docs/configuration.md), as a picocli mixin.
 */
public final class ConfigArguments {

  @Spec(Spec.Target.MIXEE)
  private CommandSpec command;

  @Option(
      names = "--config",
      paramLabel = "FILE",
      description =
          "Tally's YAML configuration (docs/configuration.md). Values may refer to environment"
              + " variables as $${NAME} or $${NAME:-default}. Without it: defaults and --set only.")
  private Path file;

  @Option(
      names = "--set",
      paramLabel = "KEY=VALUE",
      description =
          "Override one configuration key, after the file (repeatable),"
              + " e.g. --set checkpoints.interval=30s.")
  private List<String> overrides = new ArrayList<>();

  /**
   * The validated configuration.
   *
   * @param environment resolves {@code ${NAME}} references, usually {@code System::getenv}
   * @throws ParameterException naming the missing file or listing every configuration problem, so
   *     that it is reported with the command's usage
   */
  public TallyConfig load(Function<String, String> environment) {
    if (file != null && !Files.isRegularFile(file)) {
      throw new ParameterException(command.commandLine(), "--config " + file + ": no such file");
    }
    try {
      return TallyConfig.read(ConfigSource.load(file, overrides, environment));
    } catch (ConfigurationException e) {
      throw new ParameterException(command.commandLine(), e.getMessage(), e);
    }
  }
}
