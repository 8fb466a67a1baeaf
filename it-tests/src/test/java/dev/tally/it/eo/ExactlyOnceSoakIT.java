package dev.tally.it.eo;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The soak: {@code -Dsoak.rounds=N} rounds, each a random scenario with a random seed, on one
 * dataset; every round's scenario, seed, time and verdict is printed, and a failed round does not
 * stop the others. Runs only when {@code soak.rounds} is set (the {@code soak} profile).
 *
 * <p>Replay one round: {@code -Dsoak.rounds=1 -Dtally.eo.seed=<run seed>
 * -Dtally.eo.scenario=<SCENARIO> -Dtally.eo.round-seed=<round seed>}.
 */
@EnabledIfSystemProperty(named = "soak.rounds", matches = "[1-9][0-9]*")
class ExactlyOnceSoakIT {

  @RegisterExtension static final MiniClusterExtension FLINK = ExactlyOnceIT.miniCluster();

  private static long seed;
  private static Harness harness;

  @BeforeAll
  static void produceTheDataset(@InjectMiniCluster MiniCluster flink) {
    seed = Seeds.seed();
    System.out.printf("Soak seed %d (replay: -D%s=%d)%n", seed, Seeds.PROPERTY, seed);
    harness = Harness.start("exactly-once-soak", flink, seed, ExactlyOnceIT.SHAPE);
  }

  @AfterAll
  static void stop() {
    if (harness != null) {
      harness.close();
    }
  }

  @Test
  void randomizedRounds() {
    int rounds = Integer.getInteger("soak.rounds");
    String forcedScenario = System.getProperty("tally.eo.scenario");
    Long forcedSeed = Long.getLong("tally.eo.round-seed");
    Random random = new Random(seed);
    List<String> results = new ArrayList<>();
    List<String> failures = new ArrayList<>();
    long started = System.nanoTime();
    for (int round = 1; round <= rounds; round++) {
      Scenario scenario =
          forcedScenario != null
              ? Scenario.valueOf(forcedScenario.toUpperCase(Locale.ROOT))
              : Scenario.values()[random.nextInt(Scenario.values().length)];
      long roundSeed = forcedSeed != null ? forcedSeed : random.nextLong();
      String line;
      try {
        Scenario.Outcome outcome = scenario.run(harness, roundSeed);
        line = outcome.toString();
        if (!outcome.verdict().exact()) {
          failures.add(line + "\n    " + outcome.verdict().summary());
        }
      } catch (Exception | AssertionError e) {
        line = String.format("%-18s seed %-20d FAILED: %s", scenario, roundSeed, e);
        failures.add(line);
      }
      results.add(line);
      System.out.printf(
          "Soak round %d/%d (%d s so far): %s%n",
          round, rounds, Harness.millisSince(started) / 1000, line);
    }
    System.out.printf(
        "Soak seed %d: %d rounds in %d s, %d failed%n",
        seed, rounds, Harness.millisSince(started) / 1000, failures.size());
    results.forEach(r -> System.out.println("  " + r));
    assertThat(failures).as("failed rounds").isEmpty();
  }
}
