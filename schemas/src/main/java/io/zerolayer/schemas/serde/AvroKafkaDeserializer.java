package io.zerolayer.schemas.serde;

import org.apache.avro.specific.SpecificRecordBase;
import org.apache.kafka.common.serialization.Deserializer;

/** Kafka deserializer for Avro single-object encoding; see {@link SingleObjectCodec}. */
public final class AvroKafkaDeserializer<T extends SpecificRecordBase> implements Deserializer<T> {
    private final SingleObjectCodec<T> codec;

    public AvroKafkaDeserializer(Class<T> type) {
        this.codec = SingleObjectCodec.of(type);
    }

    @Override
    public T deserialize(String topic, byte[] data) {
        return data == null ? null : codec.decode(data);
    }
}
