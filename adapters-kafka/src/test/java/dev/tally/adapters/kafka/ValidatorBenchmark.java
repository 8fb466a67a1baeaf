package dev.tally.adapters.kafka;

import dev.tally.domain.transaction.RawTransaction;
import dev.tally.domain.transaction.RawValue;
import dev.tally.domain.transaction.TransactionValidator;
import dev.tally.domain.transaction.ValidationResult;
import java.time.Instant;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Validation alone, on one thread: the domain's field rules applied to already decoded raw values
 * (the step between {@link DecoderBenchmark}'s parse and the accepted {@code Transaction}),
 * including the {@code Transaction} constructor. Run with {@code -prof gc} for bytes per record.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class ValidatorBenchmark {

  private static final String[] CURRENCIES = {"EUR", "USD", "GBP"};
  private static final int POOL = 4096;

  private final TransactionValidator validator = TransactionValidator.withDefaults();
  private RawTransaction[] raw;
  private long[] recordTimestamps;
  private int next;

  @Setup
  public void setUp() {
    SplittableRandom random = new SplittableRandom(42);
    long base = Instant.parse("2026-11-29T10:00:00Z").toEpochMilli();
    raw = new RawTransaction[POOL];
    recordTimestamps = new long[POOL];
    for (int i = 0; i < POOL; i++) {
      long eventTime = base + random.nextLong(3_600_000);
      RawValue timestamp =
          switch (i % 3) {
            case 1 -> RawValue.integer(eventTime);
            case 2 ->
                RawValue.text(
                    Instant.ofEpochMilli(eventTime).toString().replace('T', ' ').replace("Z", ""));
            default -> RawValue.text(Instant.ofEpochMilli(eventTime).toString());
          };
      raw[i] =
          new RawTransaction(
              RawValue.text("tx-" + random.nextLong(1L << 40)),
              RawValue.text("user-" + random.nextInt(100_000)),
              RawValue.integer(random.nextLong(-5_000, 500_000)),
              RawValue.text(CURRENCIES[random.nextInt(CURRENCIES.length)]),
              timestamp);
      recordTimestamps[i] = eventTime;
    }
  }

  @Benchmark
  public ValidationResult validate() {
    int i = next++ & (POOL - 1);
    return validator.validate(raw[i], recordTimestamps[i]);
  }
}
