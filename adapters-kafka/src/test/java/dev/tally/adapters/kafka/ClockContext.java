package dev.tally.adapters.kafka;

import org.apache.flink.api.common.eventtime.WatermarkGeneratorSupplier;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.util.clock.RelativeClock;

/** What a watermark generator is created with, on a clock the test drives. */
final class ClockContext implements WatermarkGeneratorSupplier.Context {

  private final RelativeClock clock;

  ClockContext(RelativeClock clock) {
    this.clock = clock;
  }

  @Override
  public MetricGroup getMetricGroup() {
    return new UnregisteredMetricsGroup();
  }

  @Override
  public RelativeClock getInputActivityClock() {
    return clock;
  }
}
