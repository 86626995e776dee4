package io.zerolayer.operators.door;

import io.zerolayer.operators.kafka.KnownTopics;
import io.zerolayer.operators.kafka.ReplyRoute;
import io.zerolayer.schemas.AnalysisRequest;
import java.io.Serializable;
import java.time.Instant;
import java.util.Map;

/**
 * What every decoded request must satisfy before the job works on it: the values taken from its
 * headers and fields, checked once at the door so that nothing downstream (Flink's serializers, the
 * Kafka producer, metric labels, cost record ids) meets a value it cannot handle. A request that
 * fails is dead-lettered with the reason; it never reaches an operator that could fail on it.
 */
public final class RequestAdmission implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Instants Avro's timestamp-millis and every client can represent: years 1970 to 9999. */
    static final Instant EARLIEST = Instant.EPOCH;

    static final Instant LATEST = Instant.parse("9999-12-31T23:59:59.999Z");

    /** Longest request id: it keys replies and cost records. */
    static final int MAX_REQUEST_ID_CHARS = 256;

    /** Longest tenant id: it labels metrics and cost summaries. */
    static final int MAX_TENANT_ID_CHARS = 256;

    /** Request attributes are echoed in every reply; their keys and values together are capped. */
    static final int MAX_ATTRIBUTE_CHARS = 64 * 1024;

    private final ReplyTopics replyTopics;
    private final KnownTopics existing;

    /** Admission without asking the broker whether reply topics exist (tests, tools). */
    public RequestAdmission(ReplyTopics replyTopics) {
        this(replyTopics, null);
    }

    /**
     * @param existing whether a named reply topic exists; null: not checked
     */
    public RequestAdmission(ReplyTopics replyTopics, KnownTopics existing) {
        this.replyTopics = replyTopics;
        this.existing = existing;
    }

    /** Releases the connection used to ask about reply topics. */
    public void close() {
        if (existing != null) {
            existing.close();
        }
    }

    /**
     * Checks a decoded request and its route, and resolves the route's reply topic.
     *
     * @throws InvalidRequestException naming the first value out of bounds
     */
    public void admit(AnalysisRequest request, ReplyRoute route) {
        String requested = route.replyTopic;
        route.replyTopic = replyTopics.resolve(requested, request.getTenantId());
        route.replyTopicResolved = true;
        if (existing != null
                && !route.replyTopic.equals(replyTopics.defaultTopic())
                && !existing.exists(route.replyTopic)) {
            String tenantDefault = replyTopics.defaultTopic(request.getTenantId());
            throw new InvalidRequestException(
                    route.replyTopic.equals(tenantDefault)
                            ? "tenant '"
                                    + request.getTenantId()
                                    + "''s reply topic "
                                    + tenantDefault
                                    + " does not exist; `zerolayer tenants sync` creates it"
                            : "kafka_replyTopic '"
                                    + route.replyTopic
                                    + "' does not exist; create it before sending (the job never"
                                    + " creates topics for requesters)");
        }
        text("requestId", request.getRequestId(), MAX_REQUEST_ID_CHARS);
        text("tenantId", request.getTenantId(), MAX_TENANT_ID_CHARS);
        if (request.getRequestId().isBlank()) {
            throw new InvalidRequestException("requestId is empty");
        }
        instant("submittedAt", request.getSubmittedAt());
        instant("deadline", request.getDeadline());
        Map<String, String> attributes = request.getAttributes();
        if (attributes != null) {
            long chars = 0;
            for (Map.Entry<String, String> a : attributes.entrySet()) {
                if (a.getKey() == null || a.getValue() == null) {
                    throw new InvalidRequestException("attributes hold a null key or value");
                }
                chars += a.getKey().length() + a.getValue().length();
            }
            if (chars > MAX_ATTRIBUTE_CHARS) {
                throw new InvalidRequestException(
                        "attributes hold "
                                + chars
                                + " chars; at most "
                                + MAX_ATTRIBUTE_CHARS
                                + " are accepted (put documents in the prompt)");
            }
        }
    }

    private static void text(String field, String value, int maxChars) {
        if (value == null) {
            throw new InvalidRequestException(field + " is missing");
        }
        if (value.length() > maxChars) {
            throw new InvalidRequestException(
                    field
                            + " '"
                            + InvalidRequestException.excerpt(value)
                            + "' is longer than "
                            + maxChars
                            + " chars");
        }
    }

    private static void instant(String field, Instant value) {
        if (value != null && (value.isBefore(EARLIEST) || value.isAfter(LATEST))) {
            throw new InvalidRequestException(
                    field
                            + " "
                            + value
                            + " is outside "
                            + EARLIEST
                            + " … "
                            + LATEST
                            + "; send epoch milliseconds or an ISO-8601 instant in that range");
        }
    }
}
