package dev.tally.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TaskRecordsInTest {

  private static final String JOB = "9adcc76baa33611efaaab78ead20dda4";
  private static final String AGGREGATOR = "d6de56ebe4d7ca0afa43cbb3e129b171";

  /** Lines as Flink's Prometheus reporter writes a task's counter (labels in its order). */
  private static String counter(String task, int subtask, int attempt, String value) {
    return "flink_taskmanager_job_task_numRecordsIn{host=\"127_0_0_1\",job_id=\""
        + JOB
        + "\",job_name=\"tally_bench\",subtask_index=\""
        + subtask
        + "\",task_attempt_id=\"4f1c\",task_attempt_num=\""
        + attempt
        + "\",task_id=\""
        + task
        + "\",task_name=\"Dedupe and aggregate \\\"spending\\\"\",tm_id=\"taskmanager_2\",} "
        + value
        + "\n";
  }

  @Test
  void readsEachAttemptsCounterAndSkipsOtherSeries() {
    String text =
        "# HELP flink_taskmanager_job_task_numRecordsIn numRecordsIn (scope: taskmanager_job_task)\n"
            + "# TYPE flink_taskmanager_job_task_numRecordsIn gauge\n"
            + counter(AGGREGATOR, 0, 2, "1234.0")
            + counter(AGGREGATOR, 1, 2, "0.0")
            + "flink_taskmanager_job_task_operator_numRecordsIn{job_id=\""
            + JOB
            + "\",} 9.0\n";

    assertThat(TaskRecordsIn.parse(text))
        .containsExactly(
            new TaskRecordsIn.Attempt(JOB, AGGREGATOR, 0, 2, 1234.0),
            new TaskRecordsIn.Attempt(JOB, AGGREGATOR, 1, 2, 0.0));
  }
}
