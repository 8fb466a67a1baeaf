package dev.tally.it.eo;

import dev.tally.it.oracle.ExactlyOnceVerdict;
import dev.tally.it.oracle.Rejection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.util.ExceptionUtils;

/**
 * The fault scenarios of the exactly-once harness. Each takes its random points (record counts,
 * checkpoint numbers, downtimes) from its seed, runs Tally's streaming job over the harness's topic
 * until it has committed the last offsets, ends it by draining ({@link Harness.Run#finishByDrain}),
 * and returns the verdict against the oracle. A scenario whose fault did not strike (the job ended
 * first) fails: a run without its fault proves nothing about it.
 */
enum Scenario {
  /** No fault: the baseline the others must equal. */
  FAILURE_FREE {
    @Override
    void inject(Harness.Run run, Random random, StringBuilder notes) throws Exception {
      JobID job = run.submit(2, null, null);
      run.finishByDrain(job);
      // The dataset's bad and oversized records must never fail the job.
      if (run.restarted(job)) {
        throw new AssertionError("the failure-free run restarted: restarts must be 0");
      }
      notes.append("no fault, no restart");
    }
  },

  /** (1) An exception thrown in a task mid-stream, after a seeded number of records. */
  TASK_EXCEPTION {
    @Override
    void inject(Harness.Run run, Random random, StringBuilder notes) throws Exception {
      long after = 2_000 + random.nextInt(40_000);
      Path marker = run.dir.resolve("fault-fired");
      Fault fault = new Fault(Fault.Kind.TASK_EXCEPTION, after, 0, marker.toString());
      JobID job = run.submit(2, null, fault);
      run.finishByDrain(job);
      check(Files.exists(marker), "the exception was thrown");
      check(run.restarted(job), "the job restarted");
      notes.append("exception after ").append(after).append(" records of a subtask, job restarted");
    }
  },

  /** (2) A failure in a task's snapshot during a seeded checkpoint; none tolerated, so failover. */
  CHECKPOINT_FAILURE {
    @Override
    void inject(Harness.Run run, Random random, StringBuilder notes) throws Exception {
      long checkpoint = 1 + random.nextInt(3);
      Path marker = run.dir.resolve("fault-fired");
      Fault fault = new Fault(Fault.Kind.CHECKPOINT_FAILURE, 0, checkpoint, marker.toString());
      JobID job = run.submit(2, null, fault, "checkpoints.tolerable-failures=0");
      run.finishByDrain(job);
      check(Files.exists(marker), "the snapshot failed");
      check(run.restarted(job), "the job restarted");
      notes
          .append("snapshot of checkpoint >= ")
          .append(checkpoint)
          .append(" failed, job restarted");
    }
  },

  /**
   * (3) The catalog goes away after a seeded number of commits: the next checkpoint writes its data
   * files and completes, and its Iceberg commit fails; the catalog comes back after a seeded delay.
   */
  COMMIT_FAILURE {
    @Override
    void inject(Harness.Run run, Random random, StringBuilder notes) throws Exception {
      long before = 1 + random.nextInt(3);
      JobID job = run.submit(2, null, pacedWhenBounded());
      check(run.awaitCheckpoints(job, before), "the job runs at checkpoint " + before);
      run.harness().infrastructure().stopCatalog();
      long stoppedAt = System.nanoTime();
      long stoppedAtMillis = System.currentTimeMillis();
      long completed = run.completedCheckpoints(job);
      boolean failedOver;
      try {
        // A checkpoint completes while the catalog is down (its data files are in the store) and
        // its
        // commit fails; the failing commit fails the committer task, so the job fails over. Either
        // sign will do: the checkpoint that completed at the very moment of the stop may be the
        // one.
        Harness.await(
            "a checkpoint completes or the job fails over while the catalog is down",
            Duration.ofMinutes(2),
            () ->
                run.completedCheckpoints(job) > completed
                    || run.restartedSince(job, stoppedAtMillis));
        Harness.sleep(Duration.ofMillis(random.nextInt(5_000)));
        failedOver = run.restartedSince(job, stoppedAtMillis);
      } finally {
        run.harness().infrastructure().startCatalog();
      }
      long down = Harness.millisSince(stoppedAt);
      run.finishByDrain(job);
      notes
          .append("catalog down ")
          .append(down)
          .append(" ms after checkpoint ")
          .append(completed)
          .append(failedOver ? ", the failed commit failed the job over" : ", no failover");
    }
  },

  /** (4) The Kafka broker restarts (same port and data) after a seeded number of checkpoints. */
  BROKER_RESTART {
    @Override
    void inject(Harness.Run run, Random random, StringBuilder notes) throws Exception {
      long before = 1 + random.nextInt(3);
      Duration downtime = Duration.ofMillis(random.nextInt(4_000));
      JobID job = run.submit(2, null, pacedWhenBounded());
      check(run.awaitCheckpoints(job, before), "the job runs at checkpoint " + before);
      long started = System.nanoTime();
      run.harness().infrastructure().restartBroker(downtime);
      long took = Harness.millisSince(started);
      run.finishByDrain(job);
      notes
          .append("broker restarted after checkpoint ")
          .append(before)
          .append(", down ")
          .append(took)
          .append(" ms")
          .append(run.restarted(job) ? ", job restarted" : ", no restart");
    }
  },

  /**
   * (5) The job is cancelled at a seeded checkpoint and resumed from its latest retained one. When
   * bounded, the first job is paced, so the cancel never races the end of input.
   */
  CANCEL_AND_RESUME {
    @Override
    void inject(Harness.Run run, Random random, StringBuilder notes) throws Exception {
      long at = 1 + random.nextInt(4);
      JobID job = run.submit(2, null, pacedWhenBounded());
      check(run.awaitCheckpoints(job, at), "the job runs at checkpoint " + at);
      Harness.sleep(Duration.ofMillis(random.nextInt(1_000)));
      run.cancel(job);
      String checkpoint = run.latestRetainedCheckpoint(job);
      JobID resumed = run.submit(2, checkpoint, null);
      run.finishByDrain(resumed);
      check(run.restoredCheckpoints(resumed) == 1, "the resumed job started from the checkpoint");
      notes
          .append("cancelled after checkpoint ")
          .append(at)
          .append(", resumed from ")
          .append(checkpoint.substring(checkpoint.lastIndexOf("chk-")));
    }
  },

  /** (6) Stop with a savepoint and resume at parallelism 3, then again and resume at 1. */
  SAVEPOINT_RESCALE {
    @Override
    void inject(Harness.Run run, Random random, StringBuilder notes) throws Exception {
      long first = 1 + random.nextInt(3);
      long second = 1 + random.nextInt(2);
      JobID p2 = run.submit(2, null, pacedWhenBounded());
      check(run.awaitCheckpoints(p2, first), "the job at p=2 runs at checkpoint " + first);
      String savepoint2 = run.stopWithSavepoint(p2);
      JobID p3 = run.submit(3, savepoint2, pacedWhenBounded());
      check(run.awaitCheckpoints(p3, second), "the job at p=3 runs at checkpoint " + second);
      String savepoint3 = run.stopWithSavepoint(p3);
      JobID p1 = run.submit(1, savepoint3, null);
      run.finishByDrain(p1);
      check(run.restoredCheckpoints(p3) == 1, "p=3 started from the savepoint");
      check(run.restoredCheckpoints(p1) == 1, "p=1 started from the savepoint");
      notes
          .append("p=2 stopped with a savepoint after checkpoint ")
          .append(first)
          .append(", p=3 after ")
          .append(second)
          .append(" more, then p=1 to the end");
    }
  },

  /**
   * (7) A rollback: stop with a savepoint, resume from it to the end, then restore the older
   * savepoint again. That restore would redo what the table and the dead-letter topic hold since;
   * it must fail at start (FAILED, no restart) with one of the two documented messages (whichever
   * check runs first), and leave table and dead letters exact.
   */
  SAVEPOINT_ROLLBACK {
    @Override
    void inject(Harness.Run run, Random random, StringBuilder notes) throws Exception {
      long first = 1 + random.nextInt(3);
      JobID older = run.submit(2, null, pacedWhenBounded());
      check(run.awaitCheckpoints(older, first), "the first job runs at checkpoint " + first);
      String savepoint = run.stopWithSavepoint(older);
      JobID resumed = run.submit(2, savepoint, null);
      run.finishByDrain(resumed);
      JobID rollback = run.submit(2, savepoint, null);
      JobStatus ended = run.awaitEnded(rollback);
      Throwable cause = run.failureCause(rollback);
      String message = cause == null ? "" : ExceptionUtils.stringifyException(cause);
      if (ended != JobStatus.FAILED
          || run.restarted(rollback)
          || !(message.contains("the table has a commit made after the restored state was taken")
              || message.contains(
                  "has a dead letter written after the restored state was taken"))) {
        throw new AssertionError(
            "the rollback to " + savepoint + " ended " + ended + " instead of failing at start",
            cause);
      }
      notes
          .append("stopped with a savepoint after checkpoint ")
          .append(first)
          .append(", resumed to the end, the rollback to the savepoint failed at start");
    }
  },

  /**
   * (8) A bounded run (a backfill) stopped with a savepoint mid-way and resumed bounded: the
   * resumed job must end by itself, with the final watermark, at the stopping offsets of the first
   * (FLINK-31006: the connector's restored enumerator never tells its readers that no more splits
   * come, so without Tally's source wrapper the resumed job never ends).
   */
  BOUNDED_RESUME {
    @Override
    void inject(Harness.Run run, Random random, StringBuilder notes) throws Exception {
      long at = 1 + random.nextInt(3);
      // Paced, so that it is still reading when stopped: stopped mid-way, and not racing its end.
      JobID first = run.submit(2, null, Fault.paced(), BOUNDED_SOURCE);
      check(run.awaitCheckpoints(first, at), "the bounded job runs at checkpoint " + at);
      String savepoint = run.stopWithSavepoint(first);
      JobID resumed = run.submit(2, savepoint, null, BOUNDED_SOURCE);
      run.finishByDrain(resumed); // a bounded job: waits for it to end FINISHED by itself
      check(run.restoredCheckpoints(resumed) == 1, "the resumed job started from the savepoint");
      notes
          .append("bounded, stopped with a savepoint after checkpoint ")
          .append(at)
          .append(", resumed bounded, ended by itself");
    }
  },

  /**
   * (8b) A streaming job stopped with a savepoint and resumed bounded (a backfill of the rest of
   * the topic from a streaming job's state): its restored splits carry no stopping offset, and the
   * resumed job must still end by itself, at the partitions' ends.
   */
  STREAMING_RESUMED_BOUNDED {
    @Override
    void inject(Harness.Run run, Random random, StringBuilder notes) throws Exception {
      long at = 1 + random.nextInt(3);
      JobID first = run.submit(2, null, Fault.paced(), STREAMING_SOURCE);
      check(run.awaitCheckpoints(first, at), "the streaming job runs at checkpoint " + at);
      String savepoint = run.stopWithSavepoint(first);
      JobID resumed = run.submit(2, savepoint, null, BOUNDED_SOURCE);
      run.finishByDrain(resumed); // a bounded job: waits for it to end FINISHED by itself
      check(run.restoredCheckpoints(resumed) == 1, "the resumed job started from the savepoint");
      notes
          .append("streaming, stopped with a savepoint after checkpoint ")
          .append(at)
          .append(", resumed bounded, ended by itself");
    }
  },

  /**
   * (9) A bounded run (a backfill) whose task throws among the last thousand records of a source
   * subtask, so that the restored job reads the rest and ends soon after the failover, often before
   * its first checkpoint: the path where Iceberg's stateless pre-commit aggregator labelled the
   * final commit "checkpoint 1" and the committer skipped it (docs/exactly-once.md).
   */
  BOUNDED_FAILOVER_AT_END {
    @Override
    void inject(Harness.Run run, Random random, StringBuilder notes) throws Exception {
      long[] perSubtask = run.harness().recordsPassingDecodingPerSubtask(2);
      long fewest = Math.min(perSubtask[0], perSubtask[1]);
      long after = fewest - 1 - random.nextInt(1_000);
      Path marker = run.dir.resolve("fault-fired");
      Fault fault = new Fault(Fault.Kind.TASK_EXCEPTION, after, 0, marker.toString());
      JobID job = run.submit(2, null, fault, BOUNDED_SOURCE);
      run.finishByDrain(job); // a bounded job: waits for it to end FINISHED by itself
      check(Files.exists(marker), "the exception was thrown");
      check(run.restarted(job), "the job restarted");
      notes
          .append("bounded, exception after ")
          .append(after)
          .append(" of ")
          .append(fewest)
          .append(" records of a subtask, job restarted and ended by itself");
    }
  },

  /**
   * (10) A subtask idle during a failover, and events after the restore that were {@code LATE}
   * before it. On a topic of its own ({@link IdleSubtaskData}): the watermark passes 12:00 while
   * one aggregator subtask receives no element and no timer, partition 1 goes silent, and the job
   * fails over on the first of the late events. After the restore the silent partition holds the
   * live watermark back until it is idle (30 s), so the replayed late events are judged by the
   * watermark floor in the checkpoint alone: they must be {@code LATE} again, not counted into an
   * hour that reopened, and the anomalies of 11:00 are written once each.
   */
  IDLE_SUBTASK_FAILOVER {
    @Override
    Harness.Run open(Harness harness, String name) {
      return harness.runOnItsOwnTopic(name, 2);
    }

    @Override
    void inject(Harness.Run run, Random random, StringBuilder notes) throws Exception {
      IdleSubtaskData data = new IdleSubtaskData(MAX_PARALLELISM, 2);
      Map<Rejection, Long> letters = new HashMap<>(run.produce(data.hourTen()));
      Path marker = run.dir.resolve("fault-fired");
      long after = data.beforeTheFailoverOnPartitionZero() + 1;
      Fault fault = new Fault(Fault.Kind.TASK_EXCEPTION, after, 0, marker.toString());
      // Streaming whatever tally.eo.bounded says: the phases are produced while the job runs.
      JobID job = run.submit(2, null, fault, "kafka.source.bounded=false");
      run.awaitCommittedWindow(job, IdleSubtaskData.TEN);
      letters.putAll(run.produce(data.hourEleven()));
      run.awaitCommittedWindow(job, IdleSubtaskData.ELEVEN);
      run.awaitCaughtUp(job);
      check(!Files.exists(marker), "no failover before the late events");
      letters.putAll(run.produce(data.afterTheFailover()));
      run.finishByDrain(job);
      check(Files.exists(marker), "the exception was thrown on the first late event");
      check(run.restarted(job), "the job restarted");
      run.expect(data.rows(), letters, data.anomalies(Harness.FINAL_WATERMARK));
      notes
          .append("hour 11:00 final with one aggregator subtask idle, partition 1 silent, ")
          .append("failover on the first of ")
          .append(letters.size())
          .append(" late events, replayed after the restore");
    }
  };

  /** {@code job.max-parallelism} of the harness's jobs: the default. */
  private static final int MAX_PARALLELISM = 128;

  /** The override that makes a scenario's jobs bounded whatever {@code tally.eo.bounded} says. */
  private static final String BOUNDED_SOURCE = "kafka.source.bounded=true";

  /** The override that makes a scenario's job streaming whatever {@code tally.eo.bounded} says. */
  private static final String STREAMING_SOURCE = "kafka.source.bounded=false";

  /**
   * For a job a scenario waits for a checkpoint of before it strikes (stops it with a savepoint,
   * cancels it, takes the catalog or broker away): {@link Fault#paced()} when the harness runs
   * bounded ({@code -Dtally.eo.bounded=true}), since a bounded job may otherwise reach its end
   * first.
   */
  private static Fault pacedWhenBounded() {
    return Harness.BOUNDED ? Fault.paced() : null;
  }

  /** Runs the scenario on its own table and dead-letter topic; returns the verdict. */
  Outcome run(Harness harness, long seed) throws Exception {
    Harness.Run run =
        open(harness, name().toLowerCase(java.util.Locale.ROOT) + "_" + Long.toHexString(seed));
    System.out.printf("[%s] %s, seed %d%n", run.name, name(), seed);
    StringBuilder notes = new StringBuilder();
    try {
      inject(run, new Random(seed), notes);
    } finally {
      // A failed scenario must not leave a job running into the next one.
      run.cancelUnfinishedJobs();
    }
    long jobMillis = Harness.millisSince(run.started);
    ExactlyOnceVerdict verdict = run.verdict();
    return new Outcome(
        this, seed, jobMillis, Harness.millisSince(run.started), notes.toString(), verdict);
  }

  /** The run's table, topics and group: by default over the harness's dataset. */
  Harness.Run open(Harness harness, String name) {
    return harness.run(name);
  }

  abstract void inject(Harness.Run run, Random random, StringBuilder notes) throws Exception;

  private static void check(boolean condition, String what) {
    if (!condition) {
      throw new AssertionError("the fault did not strike as planned: expected " + what);
    }
  }

  /** What a scenario run did and how it ended. */
  record Outcome(
      Scenario scenario,
      long seed,
      long jobMillis,
      long totalMillis,
      String notes,
      ExactlyOnceVerdict verdict) {
    @Override
    public String toString() {
      return String.format(
          "%-18s seed %-20d %s in %6d ms (jobs %6d ms): %s",
          scenario, seed, verdict.exact() ? "EXACT" : "NOT EXACT", totalMillis, jobMillis, notes);
    }
  }
}
