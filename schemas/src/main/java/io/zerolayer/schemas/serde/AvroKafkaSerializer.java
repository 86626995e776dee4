package io.zerolayer.schemas.serde;

import org.apache.avro.specific.SpecificRecordBase;
import org.apache.kafka.common.serialization.Serializer;

/** Kafka serializer writing Avro single-object encoding; no schema registry needed. */
public final class AvroKafkaSerializer<T extends SpecificRecordBase> implements Serializer<T> {
    private final SingleObjectCodec<T> codec;

    public AvroKafkaSerializer(Class<T> type) {
        this.codec = SingleObjectCodec.of(type);
    }

    @Override
    public byte[] serialize(String topic, T data) {
        return data == null ? null : codec.encode(data);
    }
}
