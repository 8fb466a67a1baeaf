package dev.tally.adapters.kafka;

import dev.tally.domain.transaction.SourceRecord;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Decodes inside the Kafka source reader, so that the timestamp assigner and the per-partition
 * watermark generator see event times. Emits exactly one {@link DecodedRecord} per consumer record.
 */
final class TransactionDeserializationSchema
    implements KafkaRecordDeserializationSchema<DecodedRecord> {

  private static final long serialVersionUID = 1L;

  private final TransactionDecoder decoder;

  TransactionDeserializationSchema(TransactionDecoder decoder) {
    this.decoder = decoder;
  }

  @Override
  public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<DecodedRecord> out) {
    out.collect(
        decoder.decode(
            new SourceRecord(
                record.topic(),
                record.partition(),
                record.offset(),
                record.timestamp(),
                record.key(),
                record.value())));
  }

  @Override
  public TypeInformation<DecodedRecord> getProducedType() {
    return TypeInformation.of(DecodedRecord.class);
  }
}
