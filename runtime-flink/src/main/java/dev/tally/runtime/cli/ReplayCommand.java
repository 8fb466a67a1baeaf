package dev.tally.runtime.cli;

import dev.tally.adapters.kafka.DeadLetterConfig;
import dev.tally.adapters.kafka.DeadLetterReplay;
import dev.tally.adapters.kafka.DeadLetterReplay.Copy;
import dev.tally.adapters.kafka.DeadLetterReplay.Plan;
import dev.tally.adapters.kafka.DeadLetterSelection;
import dev.tally.domain.rejection.RejectionReason;
import dev.tally.runtime.config.TallyConfig;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code TallyMain replay}: copies selected dead letters back to a topic the job reads, exactly
 * once, with their original key and value ({@link DeadLetterReplay}); a dead letter replayed before
 * is left out, so a replay run twice copies nothing the second time. {@code --dry-run} prints what
 * it would copy.
 *
 * <pre>
 * java -cp "tally-job.jar:flink-lib/*" dev.tally.runtime.TallyMain replay --config tally.yaml \
 *   --reason FUTURE_TIMESTAMP --since 2026-12-01T09:00:00Z --dry-run
 * </pre>
 */
@Command(
    name = "replay",
    description =
        "Copies selected dead letters back to a topic, exactly once: original key and value,"
            + " headers recording the replay. A dead letter replayed before is left out.")
public final class ReplayCommand implements Callable<Integer> {

  /** The suffix of the replay's transactional id, after the dead-letter sink's prefix. */
  static final String TRANSACTIONAL_ID_SUFFIX = "-replay";

  // Reading a large dead-letter topic to its end takes a while; a broker that does not answer
  // fails.
  private static final Duration TIMEOUT = Duration.ofMinutes(5);

  @Spec private CommandSpec command;

  @Mixin private ConfigArguments configuration;

  @Option(
      names = "--reason",
      paramLabel = "REASON",
      description = "Only dead letters of this reason (repeatable), e.g. FUTURE_TIMESTAMP.")
  private List<String> reasons = new ArrayList<>();

  @Option(
      names = "--since",
      paramLabel = "INSTANT",
      description = "Only dead letters written at this instant or later (ISO-8601, with Z).")
  private Instant since;

  @Option(
      names = "--until",
      paramLabel = "INSTANT",
      description = "Only dead letters written before this instant.")
  private Instant until;

  @Option(
      names = "--source-partition",
      paramLabel = "N",
      description = "Only dead letters of records from this partition of their topic.")
  private Integer sourcePartition;

  @Option(
      names = "--from-offset",
      paramLabel = "OFFSET",
      description = "With --source-partition: only records at this offset or later.")
  private Long fromOffset;

  @Option(
      names = "--to-offset",
      paramLabel = "OFFSET",
      description = "With --source-partition: only records before this offset.")
  private Long toOffset;

  @Option(
      names = "--to-topic",
      paramLabel = "TOPIC",
      description = "Copy to this topic (default: each dead letter's source topic).")
  private String toTopic;

  @Option(names = "--dry-run", description = "Print what would be replayed; write nothing.")
  private boolean dryRun;

  @Mixin private HelpOption help;

  private final Terminal terminal;

  /** The command, to be added to {@code TallyMain}'s command line. */
  public ReplayCommand(Terminal terminal) {
    this.terminal = terminal;
  }

  @Override
  public Integer call() {
    DeadLetterSelection selection = selection();
    TallyConfig config = configuration.load(terminal.environment());
    DeadLetterConfig deadLetters = config.kafka().deadLetter();
    Map<String, String> client = new HashMap<>(deadLetters.producerProperties());
    client.put("bootstrap.servers", deadLetters.bootstrapServers());
    DeadLetterReplay replay =
        new DeadLetterReplay(
            client,
            deadLetters.topic(),
            deadLetters.transactionalIdPrefix() + TRANSACTIONAL_ID_SUFFIX,
            TIMEOUT,
            Clock.systemUTC());
    Plan plan = dryRun ? replay.plan(selection, toTopic) : replay.replay(selection, toTopic);
    print(plan, selection, deadLetters.topic(), terminal.out());
    return 0;
  }

  private DeadLetterSelection selection() {
    for (String reason : reasons) {
      try {
        RejectionReason.valueOf(reason);
      } catch (IllegalArgumentException e) {
        throw new ParameterException(
            command.commandLine(),
            "--reason " + reason + ": not a reason; one of " + List.of(RejectionReason.values()));
      }
    }
    try {
      return new DeadLetterSelection(
          new LinkedHashSet<>(reasons), since, until, sourcePartition, fromOffset, toOffset);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(
          command.commandLine(),
          e.getMessage()
              .replace("source offsets", "--from-offset and --to-offset")
              .replace("a source partition", "--source-partition")
              .replace("since must be before until", "--since must be before --until"));
    }
  }

  private void print(Plan plan, DeadLetterSelection selection, String topic, PrintStream out) {
    String verb = dryRun ? "would replay" : "replayed";
    for (Copy copy : plan.toReplay()) {
      out.println(line(verb, copy));
    }
    for (Copy copy : plan.alreadyReplayed()) {
      out.println(line("already replayed", copy));
    }
    out.printf(
        "%s %d dead letter(s) of %s (%s); %d replayed before, left out.%n",
        dryRun ? "Would replay" : "Replayed",
        plan.toReplay().size(),
        topic,
        selection.describe(),
        plan.alreadyReplayed().size());
  }

  private static String line(String verb, Copy copy) {
    return verb
        + " "
        + copy.letter().id()
        + " "
        + copy.letter().reason()
        + " (record "
        + copy.letter().source()
        + ") to "
        + copy.target();
  }
}
