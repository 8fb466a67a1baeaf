package dev.tally.adapters.kafka;

import java.util.Objects;

/**
 * A topic one of the job's sinks writes, which the start checks when it exists and creates when it
 * is missing, with the dead-letter topic ({@link DeadLetterSizing#sizeFor(DeadLetterConfig,
 * KafkaSourceConfig, java.util.List)}, {@link SinkTopics}).
 *
 * @param key the configuration key that names the topic, for messages
 * @param topic the topic
 * @param maxMessageBytes the {@code max.message.bytes} the topic needs: the largest record the sink
 *     writes, batch overhead included; a topic Tally creates gets exactly this
 * @param why what that size is for, for messages, e.g. {@code "an anomaly alert takes at most 4096
 *     bytes"}
 */
public record SinkTopic(String key, String topic, long maxMessageBytes, String why) {

  /**
   * The most bytes an anomaly alert takes on the wire, batch and record overhead included: a key
   * (the user id) of at most 128 UTF-16 units in UTF-8, 384 bytes, and a JSON value of at most
   * about 1,850 bytes (two ids of 128 units each escaped to at most 6 bytes, a currency code, an
   * instant, four numbers, the field names), with room to spare. {@code SinkTopicTest} checks that
   * the largest alert stays within it.
   */
  public static final long ALERT_MAX_BYTES = 4096;

  public SinkTopic {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(why, "why");
    if (maxMessageBytes <= 0) {
      throw new IllegalArgumentException("maxMessageBytes must be positive: " + maxMessageBytes);
    }
  }

  /**
   * The anomaly topic.
   *
   * @param key the key that names it
   * @param topic the topic
   */
  public static SinkTopic alerts(String key, String topic) {
    return new SinkTopic(
        key, topic, ALERT_MAX_BYTES, "the " + ALERT_MAX_BYTES + " bytes an anomaly alert may take");
  }
}
