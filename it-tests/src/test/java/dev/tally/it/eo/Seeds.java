package dev.tally.it.eo;

/** The harness's seed: {@code -Dtally.eo.seed=<n>} replays a run, else a new one is drawn. */
final class Seeds {
  static final String PROPERTY = "tally.eo.seed";

  private Seeds() {}

  static long seed() {
    String given = System.getProperty(PROPERTY);
    return given == null || given.isBlank() ? System.nanoTime() : Long.parseLong(given.trim());
  }

  /** A scenario's own seed, derived from the run's. */
  static long forScenario(long seed, Scenario scenario) {
    return seed * 31 + scenario.ordinal() + 1;
  }
}
