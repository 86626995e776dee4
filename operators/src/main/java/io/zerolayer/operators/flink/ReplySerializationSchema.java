package io.zerolayer.operators.flink;

import io.zerolayer.operators.door.ReplyTopics;
import io.zerolayer.operators.kafka.ReplyRecord;
import java.util.Optional;
import org.apache.flink.connector.kafka.lineage.DefaultKafkaDatasetFacet;
import org.apache.flink.connector.kafka.lineage.DefaultKafkaDatasetIdentifier;
import org.apache.flink.connector.kafka.lineage.KafkaDatasetFacet;
import org.apache.flink.connector.kafka.lineage.KafkaDatasetFacetProvider;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * Writes the replies {@link EncodeReplies} encoded, as they are.
 *
 * <p>It names the topics it may write to as a pattern (the allow-list's), so that an exactly-once
 * sink can reuse a few transactional ids and, on recovery, find its lingering transactions on those
 * topics (the connector's {@code POOLING} naming).
 */
public final class ReplySerializationSchema
        implements KafkaRecordSerializationSchema<ReplyRecord>, KafkaDatasetFacetProvider {
    private static final long serialVersionUID = 1L;

    private final ReplyTopics replyTopics;

    public ReplySerializationSchema(ReplyTopics replyTopics) {
        this.replyTopics = replyTopics;
    }

    @Override
    public Optional<KafkaDatasetFacet> getKafkaDatasetFacet() {
        return Optional.of(
                new DefaultKafkaDatasetFacet(
                        DefaultKafkaDatasetIdentifier.ofPattern(replyTopics.pattern())));
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(
            ReplyRecord reply, KafkaSinkContext context, Long timestamp) {
        RecordHeaders headers = new RecordHeaders();
        for (int i = 0; i < reply.headerKeys.length; i++) {
            headers.add(reply.headerKeys[i], reply.headerValues[i]);
        }
        return new ProducerRecord<>(reply.topic, null, null, reply.key, reply.value, headers);
    }
}
