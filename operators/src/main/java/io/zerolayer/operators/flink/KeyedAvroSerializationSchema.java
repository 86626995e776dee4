package io.zerolayer.operators.flink;

import io.zerolayer.schemas.serde.SingleObjectCodec;
import java.nio.charset.StandardCharsets;
import org.apache.avro.specific.SpecificRecordBase;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.util.function.SerializableFunction;
import org.apache.kafka.clients.producer.ProducerRecord;

/** Writes Avro records (single-object encoding) to one topic, keyed by a field of the record. */
public final class KeyedAvroSerializationSchema<T extends SpecificRecordBase>
        implements KafkaRecordSerializationSchema<T> {
    private final String topic;
    private final Class<T> type;
    private final SerializableFunction<T, String> key;
    private transient SingleObjectCodec<T> codec;

    public KeyedAvroSerializationSchema(
            String topic, Class<T> type, SerializableFunction<T, String> key) {
        this.topic = topic;
        this.type = type;
        this.key = key;
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(
            T record, KafkaSinkContext context, Long timestamp) {
        if (codec == null) {
            codec = SingleObjectCodec.of(type);
        }
        return new ProducerRecord<>(
                topic, key.apply(record).getBytes(StandardCharsets.UTF_8), codec.encode(record));
    }
}
