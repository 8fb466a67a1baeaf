package dev.tally.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.MockProducer;
import org.junit.jupiter.api.Test;

class TrafficGeneratorTest {

  private static final Pattern FIELDS =
      Pattern.compile(
          "\\{\"transaction_id\":\"([^\"]+)\",\"user_id\":\"user-(\\d+)\",\"amount_cents\":(-?\\d+),"
              + "\"currency\":\"([A-Z]{3})\",\"event_timestamp\":\"([^\"]+)\"}");

  /**
   * A generated spike is where the generator says: a valid, on-time, huge amount of a heavy user.
   */
  @Test
  void spikesAreValidHugeAmountsOfHeavyUsersWithTheIdsItReports() {
    // Nothing is sent: the records are taken one by one, as run() takes them.
    TrafficGenerator generator =
        new TrafficGenerator(new MockProducer<>(), "transactions", 300, 60, 42);
    Map<String, String> valueById = new HashMap<>();
    List<Long> otherAmounts = new ArrayList<>();
    for (int i = 0; i < 30_000; i++) {
      String value = new String(generator.nextRecord()[1], StandardCharsets.UTF_8);
      Matcher m = FIELDS.matcher(value);
      if (m.matches()) {
        valueById.putIfAbsent(m.group(1), value); // a conflicting duplicate comes later
      }
    }
    // ~300 events/s for 100 s at 1 in 1,500: about 20, at least a few for a demo's report.
    assertThat(generator.spikes()).hasSizeBetween(5, 60);
    for (Map.Entry<String, String> e : valueById.entrySet()) {
      Matcher m = FIELDS.matcher(e.getValue());
      assertThat(m.matches()).isTrue();
      long amount = Long.parseLong(m.group(3));
      if (!generator.spikes().contains(e.getKey())) {
        otherAmounts.add(amount);
        continue;
      }
      assertThat(Integer.parseInt(m.group(2))).isLessThan(TrafficGenerator.SPIKE_USERS);
      assertThat(amount)
          .isBetween(50 * TrafficGenerator.TYPICAL_CENTS, 100 * TrafficGenerator.TYPICAL_CENTS);
      assertThat(Instant.parse(m.group(5))).isBefore(Instant.now());
    }
    // Every spike is among the valid records, and far above what the others usually spend.
    assertThat(valueById.keySet()).containsAll(generator.spikes());
    otherAmounts.sort(null);
    assertThat(otherAmounts.get(otherAmounts.size() / 2) * 30)
        .isLessThan(50 * TrafficGenerator.TYPICAL_CENTS);
  }
}
