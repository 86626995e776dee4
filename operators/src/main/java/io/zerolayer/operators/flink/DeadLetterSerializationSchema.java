package io.zerolayer.operators.flink;

import io.zerolayer.schemas.ZeroLayerHeaders;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.apache.flink.connector.kafka.lineage.DefaultKafkaDatasetFacet;
import org.apache.flink.connector.kafka.lineage.DefaultKafkaDatasetIdentifier;
import org.apache.flink.connector.kafka.lineage.KafkaDatasetFacet;
import org.apache.flink.connector.kafka.lineage.KafkaDatasetFacetProvider;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * Writes an undecodable record to the dead-letter topic with its original key, value and headers
 * untouched, plus Spring Kafka's DLT headers (partition and offset as big-endian int and long, as
 * Spring writes them).
 */
public final class DeadLetterSerializationSchema
        implements KafkaRecordSerializationSchema<DeadLetter>, KafkaDatasetFacetProvider {
    private final String topic;

    public DeadLetterSerializationSchema(String topic) {
        this.topic = topic;
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(
            DeadLetter letter, KafkaSinkContext context, Long timestamp) {
        RawRecord raw = letter.original;
        RecordHeaders headers = new RecordHeaders();
        for (int i = 0; i < raw.headerKeys.length; i++) {
            headers.add(raw.headerKeys[i], raw.headerValues[i]);
        }
        headers.add(ZeroLayerHeaders.DLT_EXCEPTION_FQCN, utf8(letter.exceptionClass));
        headers.add(ZeroLayerHeaders.DLT_EXCEPTION_MESSAGE, utf8(letter.exceptionMessage));
        headers.add(ZeroLayerHeaders.DLT_ORIGINAL_TOPIC, utf8(raw.topic));
        headers.add(
                ZeroLayerHeaders.DLT_ORIGINAL_PARTITION,
                ByteBuffer.allocate(Integer.BYTES).putInt(raw.partition).array());
        headers.add(
                ZeroLayerHeaders.DLT_ORIGINAL_OFFSET,
                ByteBuffer.allocate(Long.BYTES).putLong(raw.offset).array());
        return new ProducerRecord<>(topic, null, null, raw.key, raw.value, headers);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
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
