package dev.tally.adapters.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.domain.fixtures.Transactions;
import dev.tally.domain.rejection.RejectedRecord;
import dev.tally.domain.rejection.RejectionReason;
import dev.tally.domain.transaction.SourceRecord;
import dev.tally.domain.transaction.SourcedTransaction;
import dev.tally.ports.in.TransactionStreams;
import dev.tally.ports.types.TallyTypes;
import java.io.IOException;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;

/** The records crossing operators must use Flink's own serializers; a Kryo fall-back is a bug. */
class FlinkSerializationTest {

  private static <T> T roundTrip(TypeInformation<T> type, T value) throws IOException {
    SerializerConfigImpl config = new SerializerConfigImpl();
    config.setGenericTypes(false); // createSerializer throws if anything would need Kryo
    TypeSerializer<T> serializer = type.createSerializer(config);
    DataOutputSerializer out = new DataOutputSerializer(256);
    serializer.serialize(value, out);
    return serializer.deserialize(
        new DataInputDeserializer(out.getSharedBuffer(), 0, out.length()));
  }

  @Test
  void decodedRecordsAreSerializedAsPojosWithoutKryo() throws IOException {
    TypeInformation<DecodedRecord> type = TypeInformation.of(DecodedRecord.class);
    SourceRecord source = new SourceRecord("t", 1, 2, 3, new byte[] {4}, new byte[] {5, 6});
    DecodedRecord accepted =
        DecodedRecord.accept(new SourcedTransaction(Transactions.aTransaction().build(), source));
    DecodedRecord rejected =
        DecodedRecord.reject(new RejectedRecord(RejectionReason.LATE, "late", source));

    assertThat(type).isInstanceOf(PojoTypeInfo.class);
    assertThat(roundTrip(type, accepted)).isEqualTo(accepted);
    assertThat(roundTrip(type, rejected)).isEqualTo(rejected);
  }

  @Test
  void acceptedTransactionsLeaveTheSourceWithTheirDedicatedSerializer() {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    TransactionStreams streams =
        new KafkaTransactionSource(
                KafkaSourceConfig.builder().bootstrapServers("127.0.0.1:9092").build())
            .open(env);

    // The keyed shuffle after the source serializes with the accepted stream's type.
    assertThat(streams.accepted().getType()).isSameAs(TallyTypes.SOURCED_TRANSACTION);
  }
}
