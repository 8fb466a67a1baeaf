package dev.tally.runtime.config;

import dev.tally.adapters.kafka.DeadLetterConfig;
import dev.tally.adapters.kafka.KafkaSourceConfig;
import dev.tally.ports.config.ConfigReader;
import java.util.Objects;

/**
 * The Kafka side of the job: the transaction source and the dead-letter sink, on one cluster. Each
 * declares and checks its own keys.
 *
 * @param source the transaction source
 * @param deadLetter the dead-letter sink
 */
public record KafkaConfig(KafkaSourceConfig source, DeadLetterConfig deadLetter) {

  public KafkaConfig {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(deadLetter, "deadLetter");
  }

  /**
   * Reads both; {@code null} when either has problems, which {@code r} records.
   *
   * @param jobName the job's name ({@link JobConfig#NAME}), of which the consumer group and the
   *     transactional-id prefix are derived unless set
   */
  static KafkaConfig read(ConfigReader r, String jobName) {
    KafkaSourceConfig source = KafkaSourceConfig.read(r, jobName);
    DeadLetterConfig deadLetter = DeadLetterConfig.read(r, jobName);
    return source == null || deadLetter == null ? null : new KafkaConfig(source, deadLetter);
  }
}
