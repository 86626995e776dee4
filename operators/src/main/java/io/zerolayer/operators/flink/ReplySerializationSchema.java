package io.zerolayer.operators.flink;

import io.zerolayer.schemas.AnalysisResponse;
import io.zerolayer.schemas.ZeroLayerHeaders;
import io.zerolayer.schemas.serde.JsonCodec;
import io.zerolayer.schemas.serde.SingleObjectCodec;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.flink.connector.kafka.lineage.DefaultKafkaDatasetFacet;
import org.apache.flink.connector.kafka.lineage.DefaultKafkaDatasetIdentifier;
import org.apache.flink.connector.kafka.lineage.KafkaDatasetFacet;
import org.apache.flink.connector.kafka.lineage.KafkaDatasetFacetProvider;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a reply to the requester's {@code kafka_replyTopic} (else the responses topic), keyed by
 * request id, with {@code kafka_correlationId} copied unchanged and the graph id as {@code
 * x-execution-graph-id}. JSON requests get JSON replies.
 *
 * <p>The last error boundary of a request: the reply topic is checked against the allow-list again
 * here, and a reply that cannot be written (a topic the allow-list refuses, a response that does
 * not serialize) goes to the dead-letter topic instead, keyed by request id with the request's
 * correlation id, its source position and the reason in Spring's DLT headers, and no value. The
 * sink never fails the job on one record.
 *
 * <p>It names the topics it may write to as a pattern (the allow-list and the dead-letter topic),
 * so that an exactly-once sink can reuse a few transactional ids and, on recovery, find its
 * lingering transactions on those topics (the connector's {@code POOLING} naming).
 */
public final class ReplySerializationSchema
        implements KafkaRecordSerializationSchema<Reply>, KafkaDatasetFacetProvider {
    private static final Logger LOG = LoggerFactory.getLogger(ReplySerializationSchema.class);

    private final ReplyTopics replyTopics;
    private final String deadLetterTopic;
    private transient SingleObjectCodec<AnalysisResponse> codec;

    public ReplySerializationSchema(ReplyTopics replyTopics, String deadLetterTopic) {
        this.replyTopics = replyTopics;
        this.deadLetterTopic = deadLetterTopic;
    }

    @Override
    public Optional<KafkaDatasetFacet> getKafkaDatasetFacet() {
        return Optional.of(
                new DefaultKafkaDatasetFacet(
                        DefaultKafkaDatasetIdentifier.ofPattern(
                                replyTopics.pattern(deadLetterTopic))));
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(
            Reply reply, KafkaSinkContext context, Long timestamp) {
        try {
            return replyRecord(reply);
        } catch (RuntimeException e) {
            LOG.warn(
                    "Reply to request {} cannot be written; dead-lettered instead: {}",
                    reply.response == null ? null : reply.response.getRequestId(),
                    e.toString());
            return deadLetter(reply, e);
        }
    }

    private ProducerRecord<byte[], byte[]> replyRecord(Reply reply) {
        if (codec == null) {
            codec = SingleObjectCodec.of(AnalysisResponse.class);
        }
        AnalysisResponse response = reply.response;
        String topic = replyTopics.resolve(reply.route.replyTopic);
        RecordHeaders headers = new RecordHeaders();
        if (reply.route.correlationId != null) {
            headers.add(ZeroLayerHeaders.CORRELATION_ID, reply.route.correlationId);
        }
        if (response.getGraphId() != null) {
            headers.add(
                    ZeroLayerHeaders.GRAPH_ID,
                    response.getGraphId().getBytes(StandardCharsets.UTF_8));
        }
        headers.add(
                ZeroLayerHeaders.CONTENT_TYPE,
                (reply.route.json ? ZeroLayerHeaders.JSON : ZeroLayerHeaders.AVRO)
                        .getBytes(StandardCharsets.UTF_8));
        byte[] value =
                reply.route.json ? JsonCodec.writeResponse(response) : codec.encode(response);
        return new ProducerRecord<>(
                topic,
                null,
                null,
                response.getRequestId().getBytes(StandardCharsets.UTF_8),
                value,
                headers);
    }

    private ProducerRecord<byte[], byte[]> deadLetter(Reply reply, RuntimeException e) {
        RecordHeaders headers = new RecordHeaders();
        ReplyRoute route = reply.route;
        if (route != null && route.correlationId != null) {
            headers.add(ZeroLayerHeaders.CORRELATION_ID, route.correlationId);
        }
        DeadLetterSerializationSchema.addReason(headers, new DeadLetter(null, e));
        if (route != null && route.sourceTopic != null) {
            DeadLetterSerializationSchema.addOrigin(
                    headers, route.sourceTopic, route.sourcePartition, route.sourceOffset);
        }
        byte[] key =
                reply.response == null || reply.response.getRequestId() == null
                        ? null
                        : utf8(reply.response.getRequestId());
        return new ProducerRecord<>(deadLetterTopic, null, null, key, null, headers);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
