package dev.tally.adapters.kafka;

import dev.tally.domain.fixtures.TransactionJson;
import dev.tally.domain.fixtures.Transactions;
import dev.tally.domain.transaction.SourceRecord;
import dev.tally.domain.transaction.TransactionField;
import dev.tally.domain.transaction.TransactionValidator;
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
 * Decoding throughput on one thread (so ops/s is records/s per core) over a pool of realistic
 * records: varied users, currencies, amounts and all three timestamp forms. Run with {@code -prof
 * gc} for bytes allocated per record. The valid records take the decoder's fast path ({@link
 * FlatRecordReader}); {@code decodeValidWithJackson} reads the same ones with Jackson, the path
 * every other record (the invalid ones here: their amount is a fraction) takes.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class DecoderBenchmark {

  private static final String[] CURRENCIES = {"EUR", "USD", "GBP"};
  private static final int POOL = 4096;

  private final TransactionDecoder decoder =
      new TransactionDecoder(
          TransactionValidator.withDefaults(), TransactionDecoder.DEFAULT_MAX_RECORD_BYTES);
  private SourceRecord[] valid;
  private SourceRecord[] invalid;
  private int next;

  @Setup
  public void setUp() {
    SplittableRandom random = new SplittableRandom(42);
    long base = Instant.parse("2026-11-29T10:00:00Z").toEpochMilli();
    valid = new SourceRecord[POOL];
    invalid = new SourceRecord[POOL];
    for (int i = 0; i < POOL; i++) {
      long eventTime = base + random.nextLong(3_600_000);
      TransactionJson json =
          TransactionJson.of(
              Transactions.aTransaction()
                  .id("tx-" + random.nextLong(1L << 40))
                  .user("user-" + random.nextInt(100_000))
                  .amount(random.nextLong(-5_000, 500_000))
                  .currency(CURRENCIES[random.nextInt(CURRENCIES.length)])
                  .at(Instant.ofEpochMilli(eventTime))
                  .build());
      switch (i % 3) {
        case 1 -> json.raw(TransactionField.EVENT_TIMESTAMP, Long.toString(eventTime));
        case 2 ->
            json.text(
                TransactionField.EVENT_TIMESTAMP,
                Instant.ofEpochMilli(eventTime).toString().replace('T', ' ').replace("Z", ""));
        default -> {}
      }
      valid[i] =
          new SourceRecord("financial-transactions", i % 8, i, eventTime, null, json.toBytes());
      invalid[i] =
          new SourceRecord(
              "financial-transactions",
              i % 8,
              i,
              eventTime,
              null,
              json.raw(TransactionField.AMOUNT_CENTS, "12.5").toBytes());
    }
  }

  @Benchmark
  public DecodedRecord decodeValid() {
    return decoder.decode(valid[next++ & (POOL - 1)]);
  }

  /** The valid records read by Jackson alone, as every record was before the fast path. */
  @Benchmark
  public DecodedRecord decodeValidWithJackson() {
    return decoder.decodeWithJackson(valid[next++ & (POOL - 1)]);
  }

  @Benchmark
  public DecodedRecord decodeInvalid() {
    return decoder.decode(invalid[next++ & (POOL - 1)]);
  }
}
