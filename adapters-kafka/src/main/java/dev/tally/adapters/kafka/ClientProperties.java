package dev.tally.adapters.kafka;

import java.util.Map;
import java.util.Properties;

/** Kafka client settings as the clients' constructors take them. */
final class ClientProperties {

  private ClientProperties() {}

  /** A fresh, mutable copy of {@code values}, which a caller may add its own settings to. */
  static Properties of(Map<String, String> values) {
    Properties properties = new Properties();
    properties.putAll(values);
    return properties;
  }
}
