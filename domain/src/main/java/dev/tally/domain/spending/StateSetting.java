package dev.tally.domain.spending;

/**
 * A setting that shapes the aggregation's state: state built under one value of it is not exact
 * under another (docs/behaviour.md "Upgrades and restores"). Each has a stable {@link #id()}, which
 * is what a record of the settings stores.
 */
public enum StateSetting {
  /** The tumbling window size: windows of another size hold other sums. */
  WINDOW_SIZE("window-size"),
  /** The windows' alignment: windows of another offset hold other sums. */
  WINDOW_OFFSET("window-offset"),
  /** How long a window stays open after its end: another one reopens or drops final windows. */
  ALLOWED_LATENESS("allowed-lateness"),
  /**
   * How long counted ids are remembered: a longer one would judge as new an id the state has
   * already forgotten, a shorter one forget ids a run with it would still remember.
   */
  DEDUPE_RETENTION("dedupe-retention"),
  /**
   * The anomaly threshold k: transactions replayed after a restore would be judged by another rule
   * than the run that took the state. Recorded only while anomalies are detected.
   */
  ANOMALY_K("anomaly-k"),
  /** The anomaly rule's minimum baseline, recorded and compared as {@link #ANOMALY_K} is. */
  ANOMALY_MIN_BASELINE("anomaly-min-baseline");

  private final String id;

  StateSetting(String id) {
    this.id = id;
  }

  /** The stable name a record of the settings stores it under. */
  public String id() {
    return id;
  }

  /** The setting stored under {@code id}, or {@code null} for one this code does not know. */
  public static StateSetting byId(String id) {
    for (StateSetting setting : values()) {
      if (setting.id.equals(id)) {
        return setting;
      }
    }
    return null;
  }
}
