package io.zerolayer.operators.flink;

import io.zerolayer.schemas.serde.SingleObjectCodec;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.apache.avro.specific.SpecificRecordBase;
import org.apache.flink.connector.kafka.lineage.DefaultKafkaDatasetFacet;
import org.apache.flink.connector.kafka.lineage.DefaultKafkaDatasetIdentifier;
import org.apache.flink.connector.kafka.lineage.KafkaDatasetFacet;
import org.apache.flink.connector.kafka.lineage.KafkaDatasetFacetProvider;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.util.function.SerializableFunction;
import org.apache.kafka.clients.producer.ProducerRecord;

/** Writes Avro records (single-object encoding) to one topic, keyed by a field of the record. */
public final class KeyedAvroSerializationSchema<T extends SpecificRecordBase>
        implements KafkaRecordSerializationSchema<T>, KafkaDatasetFacetProvider {
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

    /**
     * The one topic this writes to. A transactional sink that knows its topics can reuse a few
     * transactional ids (the connector's POOLING naming): on restart it finds lingering
     * transactions by asking the broker which producers have open ones on these topics.
     */
    @Override
    public Optional<KafkaDatasetFacet> getKafkaDatasetFacet() {
        return Optional.of(
                new DefaultKafkaDatasetFacet(
                        DefaultKafkaDatasetIdentifier.ofTopics(List.of(topic))));
    }
}
