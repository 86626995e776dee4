package io.zerolayer.operators.flink;

import io.zerolayer.operators.door.ReplyTopics;
import io.zerolayer.operators.kafka.DeadLetter;
import io.zerolayer.operators.kafka.RawRecord;
import io.zerolayer.operators.kafka.ReplyRecord;
import io.zerolayer.operators.kafka.ReplyRoute;
import io.zerolayer.operators.replies.Reply;
import io.zerolayer.schemas.AnalysisResponse;
import io.zerolayer.schemas.ZeroLayerHeaders;
import io.zerolayer.schemas.serde.JsonCodec;
import io.zerolayer.schemas.serde.SingleObjectCodec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last error boundary of a request: turns each reply into the record the replies sink writes —
 * to the requester's {@code kafka_replyTopic} (else the responses topic), keyed by request id, with
 * {@code kafka_correlationId} copied unchanged, the graph id as {@code x-execution-graph-id} and a
 * deterministic {@code x-zerolayer-reply-id}. JSON requests get JSON replies.
 *
 * <p>The reply topic is checked against the allow-list again here. A reply that cannot be written
 * (a topic the allow-list refuses, a response that does not serialize) goes to {@link
 * #DEAD_LETTERS} instead, keyed by request id, with the request's correlation id, its source
 * position and the reason in Spring's DLT headers, and no value. Encoding before the sink keeps
 * those letters on the exactly-once dead-letter sink whatever the replies' delivery guarantee, and
 * leaves the replies sink nothing that can fail on one record.
 */
public final class EncodeReplies extends ProcessFunction<Reply, ReplyRecord> {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(EncodeReplies.class);

    /** Replies that cannot be written, as dead letters. */
    public static final OutputTag<DeadLetter> DEAD_LETTERS =
            new OutputTag<>("unwritable-replies", TypeInformation.of(DeadLetter.class));

    private final ReplyTopics replyTopics;
    private transient SingleObjectCodec<AnalysisResponse> codec;

    public EncodeReplies(ReplyTopics replyTopics) {
        this.replyTopics = replyTopics;
    }

    @Override
    public void processElement(Reply reply, Context ctx, Collector<ReplyRecord> out) {
        ReplyRecord record;
        try {
            record = encode(reply);
        } catch (RuntimeException e) {
            LOG.warn(
                    "Reply to request {} cannot be written; dead-lettered instead: {}",
                    reply.response == null ? null : reply.response.getRequestId(),
                    e.toString());
            ctx.output(DEAD_LETTERS, deadLetter(reply, e));
            return;
        }
        out.collect(record);
    }

    /**
     * The record for {@code reply}.
     *
     * @throws RuntimeException when the reply cannot be written: its topic is refused, or its
     *     response does not serialize
     */
    ReplyRecord encode(Reply reply) {
        if (codec == null) {
            codec = SingleObjectCodec.of(AnalysisResponse.class);
        }
        AnalysisResponse response = reply.response;
        ReplyRoute route = reply.route;
        ReplyRecord record = new ReplyRecord();
        // admission resolved most routes already; a refusal sent before it was not
        record.topic =
                route.replyTopicResolved
                        ? route.replyTopic
                        : replyTopics.resolve(route.replyTopic, response.getTenantId());
        record.key = utf8(response.getRequestId());
        record.value = route.json ? JsonCodec.writeResponse(response) : codec.encode(response);
        List<String> keys = new ArrayList<>(4);
        List<byte[]> values = new ArrayList<>(4);
        if (route.correlationId != null) {
            keys.add(ZeroLayerHeaders.CORRELATION_ID);
            values.add(route.correlationId);
        }
        keys.add(ZeroLayerHeaders.REPLY_ID);
        values.add(utf8(replyId(route)));
        if (response.getGraphId() != null) {
            keys.add(ZeroLayerHeaders.GRAPH_ID);
            values.add(utf8(response.getGraphId()));
        }
        keys.add(ZeroLayerHeaders.CONTENT_TYPE);
        values.add(utf8(route.json ? ZeroLayerHeaders.JSON : ZeroLayerHeaders.AVRO));
        record.headerKeys = keys.toArray(String[]::new);
        record.headerValues = values.toArray(byte[][]::new);
        return record;
    }

    /**
     * The reply id of a request: its position in Kafka, which a replay after a restart reads again
     * unchanged, and which no header of the request can forge.
     */
    static String replyId(ReplyRoute route) {
        return route.sourceTopic + "/" + route.sourcePartition + "/" + route.sourceOffset;
    }

    /** A reply that cannot be written, as a dead letter: no value, its correlation id kept. */
    static DeadLetter deadLetter(Reply reply, RuntimeException cause) {
        RawRecord letter = new RawRecord();
        ReplyRoute route = reply.route;
        if (route != null) {
            letter.topic = route.sourceTopic;
            letter.partition = route.sourcePartition;
            letter.offset = route.sourceOffset;
            if (route.correlationId != null) {
                letter.headerKeys = new String[] {ZeroLayerHeaders.CORRELATION_ID};
                letter.headerValues = new byte[][] {route.correlationId};
            }
        }
        letter.key =
                reply.response == null || reply.response.getRequestId() == null
                        ? null
                        : utf8(reply.response.getRequestId());
        return new DeadLetter(letter, cause);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
