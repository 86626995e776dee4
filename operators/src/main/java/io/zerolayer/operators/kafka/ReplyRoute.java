package io.zerolayer.operators.kafka;

import io.zerolayer.operators.door.RequestAdmission;
import io.zerolayer.schemas.ZeroLayerHeaders;

/**
 * Where and how a reply goes: Spring Kafka's request/reply conventions. The correlation id is
 * copied byte for byte; a null reply topic means the configured responses topic. The reply topic is
 * the header's raw value until {@link RequestAdmission} resolves it against the allow-list.
 */
public class ReplyRoute {
    public String replyTopic;

    /**
     * Whether {@link #replyTopic} is resolved against the allow-list (by the door's admission); the
     * reply encoder resolves a route that is not, so a reply never goes where a header alone says.
     */
    public boolean replyTopicResolved;

    public byte[] correlationId;

    /** Where the request was read, for a dead letter if its reply cannot be written. */
    public String sourceTopic;

    public int sourcePartition;
    public long sourceOffset;

    /** Reply in JSON because the request came as JSON. */
    public boolean json;

    public ReplyRoute() {}

    public static ReplyRoute of(RawRecord raw) {
        ReplyRoute route = new ReplyRoute();
        route.replyTopic = raw.headerString(ZeroLayerHeaders.REPLY_TOPIC);
        if (route.replyTopic != null && route.replyTopic.isBlank()) {
            route.replyTopic = null;
        }
        route.correlationId = raw.header(ZeroLayerHeaders.CORRELATION_ID);
        route.sourceTopic = raw.topic;
        route.sourcePartition = raw.partition;
        route.sourceOffset = raw.offset;
        route.json = isJson(raw);
        return route;
    }

    /** Whether a record says it is JSON ({@code content-type: application/json}); else Avro. */
    public static boolean isJson(RawRecord raw) {
        String contentType = raw.headerString(ZeroLayerHeaders.CONTENT_TYPE);
        return contentType != null
                && contentType.toLowerCase(java.util.Locale.ROOT).startsWith(ZeroLayerHeaders.JSON);
    }
}
