package dev.tally.bench;

import dev.tally.stack.FlinkRestClient;

/**
 * Follows a leg's job through its REST API while its JVM runs, on a thread of its own: what only
 * the running job can tell (its checkpoints, its records so far) is gone once a bounded job's
 * MiniCluster exits. It may also end the job early ({@link MeasuredProcess#stop}).
 */
interface JobWatch {

  /** Follows nothing. */
  JobWatch NONE = (rest, process) -> {};

  /** Returns when {@code process} has exited, or when it has nothing more to follow. */
  void follow(FlinkRestClient rest, MeasuredProcess process);
}
