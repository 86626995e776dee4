package io.zerolayer.operators.flink;

import io.zerolayer.schemas.AnalysisResponse;
import io.zerolayer.schemas.ZeroLayerHeaders;
import io.zerolayer.schemas.serde.JsonCodec;
import io.zerolayer.schemas.serde.SingleObjectCodec;
import java.nio.charset.StandardCharsets;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * Writes a reply to the requester's {@code kafka_replyTopic} (else the responses topic), keyed by
 * request id, with {@code kafka_correlationId} copied unchanged and the graph id as {@code
 * x-execution-graph-id}. JSON requests get JSON replies.
 */
public final class ReplySerializationSchema implements KafkaRecordSerializationSchema<Reply> {
    private final String defaultTopic;
    private transient SingleObjectCodec<AnalysisResponse> codec;

    public ReplySerializationSchema(String defaultTopic) {
        this.defaultTopic = defaultTopic;
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(
            Reply reply, KafkaSinkContext context, Long timestamp) {
        if (codec == null) {
            codec = SingleObjectCodec.of(AnalysisResponse.class);
        }
        AnalysisResponse response = reply.response;
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
        String topic = reply.route.replyTopic != null ? reply.route.replyTopic : defaultTopic;
        return new ProducerRecord<>(
                topic,
                null,
                null,
                response.getRequestId().getBytes(StandardCharsets.UTF_8),
                value,
                headers);
    }
}
