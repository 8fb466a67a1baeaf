package dev.tally.runtime.topology;

import dev.tally.domain.spending.OpenWindow;
import dev.tally.domain.spending.SeenTransaction;
import dev.tally.domain.transaction.SourceRecord;
import dev.tally.domain.transaction.SourcedTransaction;
import dev.tally.domain.transaction.Transaction;
import dev.tally.ports.types.TallyTypes;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One serialize-and-deserialize round trip of each value the aggregator's input and state carry,
 * with Flink's reflective serializers ({@code reflective}: the record serializer, the generic array
 * serializer) against the dedicated ones ({@code dedicated}). Deserializing a transaction includes
 * its constructor's field rules, as on the job's per-event path.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class SerializerBenchmark {

  @Param({"reflective", "dedicated"})
  public String serializers;

  private TypeSerializer<SourcedTransaction> transactionSerializer;
  private TypeSerializer<SeenTransaction> seenSerializer;
  private TypeSerializer<OpenWindow[]> windowsSerializer;
  private SourcedTransaction transaction;
  private SeenTransaction seen;
  private OpenWindow[] windows;
  private final DataOutputSerializer out = new DataOutputSerializer(512);
  private final DataInputDeserializer in = new DataInputDeserializer();

  @Setup
  public void setUp() {
    SerializerConfigImpl config = new SerializerConfigImpl();
    config.setGenericTypes(false);
    boolean reflective = serializers.equals("reflective");
    transactionSerializer =
        (reflective ? TypeInformation.of(SourcedTransaction.class) : TallyTypes.SOURCED_TRANSACTION)
            .createSerializer(config);
    seenSerializer =
        (reflective ? TypeInformation.of(SeenTransaction.class) : StateTypes.SEEN_TRANSACTION)
            .createSerializer(config);
    windowsSerializer =
        (reflective ? TypeInformation.of(OpenWindow[].class) : StateTypes.OPEN_WINDOWS)
            .createSerializer(config);
    Transaction tx =
        new Transaction(
            "tx-8f14e45f-ceea-467f-a0e6",
            "user-48213",
            12_345,
            "EUR",
            Instant.parse("2026-11-29T10:15:30.123Z"));
    byte[] value =
        ("{\"transaction_id\":\"tx-8f14e45f-ceea-467f-a0e6\",\"user_id\":\"user-48213\","
                + "\"amount_cents\":12345,\"currency\":\"EUR\","
                + "\"event_timestamp\":\"2026-11-29 10:15:30.123\"}")
            .getBytes(StandardCharsets.UTF_8);
    transaction =
        new SourcedTransaction(
            tx,
            new SourceRecord(
                "financial-transactions",
                3,
                1_234_567,
                1_764_411_330_123L,
                "user-48213".getBytes(StandardCharsets.UTF_8),
                value));
    seen = SeenTransaction.of(tx);
    windows =
        new OpenWindow[] {
          new OpenWindow("EUR", 1_764_410_400_000L, 1_234_500, 17, false, false),
          new OpenWindow("USD", 1_764_410_400_000L, -5_000, 1, true, true),
          new OpenWindow("GBP", 1_764_414_000_000L, 99, 2, false, false),
        };
  }

  private <T> T roundTrip(TypeSerializer<T> serializer, T value) throws IOException {
    out.clear();
    serializer.serialize(value, out);
    in.setBuffer(out.getSharedBuffer(), 0, out.length());
    return serializer.deserialize(in);
  }

  @Benchmark
  public SourcedTransaction sourcedTransaction() throws IOException {
    return roundTrip(transactionSerializer, transaction);
  }

  @Benchmark
  public SeenTransaction seenTransaction() throws IOException {
    return roundTrip(seenSerializer, seen);
  }

  @Benchmark
  public OpenWindow[] openWindows() throws IOException {
    return roundTrip(windowsSerializer, windows);
  }
}
