package dev.tally.bench;

/**
 * One leg's figures. A skipped leg has only a name, a status and a note; a leg whose output is
 * wrong keeps its figures but is marked, so a fast but wrong run cannot look good.
 *
 * @param status {@code ok}, {@code wrong} (finished, but the output does not match the
 *     expectation), {@code failed} (did not finish), {@code unfinished} (stopped at a time limit)
 *     or {@code skipped}
 * @param note how the result was checked, or why the leg was skipped or failed
 * @param records records read (for the jobs: counted in the output table)
 * @param processingSeconds wall time of processing, as the leg defines it (see docs)
 * @param processWallSeconds wall time of the whole process, JVM start to exit
 * @param cpuSeconds CPU time (user + system) of the whole process
 * @param peakRssMib peak resident set size (VmHWM)
 * @param icebergCommits snapshots in the output table, -1 when the leg writes none
 * @param icebergDataFiles data files in the current snapshot, -1 when none
 * @param icebergDeleteFiles delete files in the current snapshot, -1 when none
 */
record LegResult(
    String name,
    String status,
    String note,
    long records,
    double processingSeconds,
    double processWallSeconds,
    double cpuSeconds,
    double peakRssMib,
    long icebergCommits,
    long icebergDataFiles,
    long icebergDeleteFiles) {

  static LegResult skipped(String name, String why) {
    return new LegResult(name, "skipped", why, 0, 0, 0, 0, 0, -1, -1, -1);
  }

  static LegResult failed(String name, String why) {
    return new LegResult(name, "failed", why, 0, 0, 0, 0, 0, -1, -1, -1);
  }

  /** This result with another note. */
  LegResult withNote(String other) {
    return new LegResult(
        name,
        status,
        other,
        records,
        processingSeconds,
        processWallSeconds,
        cpuSeconds,
        peakRssMib,
        icebergCommits,
        icebergDataFiles,
        icebergDeleteFiles);
  }

  boolean measured() {
    return status.equals("ok") || status.equals("wrong");
  }

  /** Records read per second of processing wall time. */
  double eventsPerSecond() {
    return processingSeconds > 0 ? records / processingSeconds : 0;
  }

  /** CPU-microseconds of the whole process per record: numerically CPU-s per million. */
  double cpuMicrosecondsPerEvent() {
    return records > 0 ? cpuSeconds * 1e6 / records : 0;
  }

  /** CPU-seconds of the whole process per million records. */
  double cpuSecondsPerMillion() {
    return records > 0 ? cpuSeconds / (records / 1e6) : 0;
  }
}
