package io.zerolayer.schemas;

/**
 * Kafka header names ZeroLayer reads and writes. The {@code kafka_*} names are Spring Kafka's, so a
 * {@code ReplyingKafkaTemplate} or a dead-letter consumer written for Spring works unchanged.
 */
public final class ZeroLayerHeaders {
    /** Topic the reply goes to; the responses topic when absent. */
    public static final String REPLY_TOPIC = "kafka_replyTopic";

    /** Opaque bytes copied unchanged from request to reply. */
    public static final String CORRELATION_ID = "kafka_correlationId";

    /** Hex SHA-256 of the execution graph that served the request. */
    public static final String GRAPH_ID = "x-execution-graph-id";

    /**
     * On a reply: the same for every reply to one request record, whichever attempt wrote it — the
     * request's position in Kafka, {@code <topic>/<partition>/<offset>}. A consumer drops a reply
     * whose id it has seen; with at-least-once replies a restart may send one twice.
     */
    public static final String REPLY_ID = "x-zerolayer-reply-id";

    /** {@code application/json} for JSON requests (replied to in JSON); Avro otherwise. */
    public static final String CONTENT_TYPE = "content-type";

    public static final String JSON = "application/json";
    public static final String AVRO = "application/avro";

    public static final String DLT_EXCEPTION_FQCN = "kafka_dlt-exception-fqcn";
    public static final String DLT_EXCEPTION_MESSAGE = "kafka_dlt-exception-message";
    public static final String DLT_ORIGINAL_TOPIC = "kafka_dlt-original-topic";
    public static final String DLT_ORIGINAL_PARTITION = "kafka_dlt-original-partition";
    public static final String DLT_ORIGINAL_OFFSET = "kafka_dlt-original-offset";

    /**
     * On a dead letter cut to fit the largest record the job may write: what was left out, e.g.
     * {@code value: kept 67043328 of 83886080 bytes}. Absent when the letter is whole.
     */
    public static final String DLT_TRUNCATED = "x-zerolayer-dlt-truncated";

    private ZeroLayerHeaders() {}
}
