package io.zerolayer.operators.flink;

import io.zerolayer.operators.kafka.DeadLetter;
import io.zerolayer.operators.kafka.RawRecord;
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
 * Writes a record the job could not serve to the dead-letter topic with its original key, value and
 * headers untouched, plus Spring Kafka's DLT headers (partition and offset as big-endian int and
 * long, as Spring writes them).
 *
 * <p>A dead letter must always be writable, so one that would not fit the largest record the job
 * may write is cut to fit: first the value, then the original headers, then the key, and header
 * {@code x-zerolayer-dlt-truncated} says what was left out.
 */
public final class DeadLetterSerializationSchema
        implements KafkaRecordSerializationSchema<DeadLetter>, KafkaDatasetFacetProvider {
    /** Room left under the record limit for the record's framing and the producer's batch. */
    static final int FRAMING_BYTES = 16 * 1024;

    private final String topic;
    private final long budget;

    /**
     * @param maxRecordBytes the largest record the sink may write (its {@code max.request.size})
     */
    public DeadLetterSerializationSchema(String topic, long maxRecordBytes) {
        if (maxRecordBytes < 4 * FRAMING_BYTES) {
            throw new IllegalArgumentException(
                    "A dead-letter record limit of "
                            + maxRecordBytes
                            + " bytes leaves no room for a letter; allow at least "
                            + 4 * FRAMING_BYTES);
        }
        this.topic = topic;
        this.budget = maxRecordBytes - FRAMING_BYTES;
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(
            DeadLetter letter, KafkaSinkContext context, Long timestamp) {
        RawRecord raw = letter.original;
        byte[] key = raw.key;
        byte[] value = raw.value;
        RecordHeaders headers = new RecordHeaders();
        long own = 1024L + 3L * (letter.exceptionClass.length() + letter.exceptionMessage.length());
        long originalHeaders = 0;
        for (int i = 0; i < raw.headerKeys.length; i++) {
            originalHeaders += 3L * raw.headerKeys[i].length() + raw.headerValues[i].length;
        }
        long keyBytes = key == null ? 0 : key.length;
        long valueBytes = value == null ? 0 : value.length;
        java.util.List<String> cut = new java.util.ArrayList<>();
        long over = own + keyBytes + originalHeaders + valueBytes - budget;
        if (over > 0 && valueBytes > 0) {
            long keep = Math.max(0, valueBytes - over);
            value = java.util.Arrays.copyOf(value, (int) keep);
            cut.add("value: kept " + keep + " of " + valueBytes + " bytes");
            over -= valueBytes - keep;
        }
        if (over > 0 && originalHeaders > 0) {
            cut.add("original headers: dropped " + originalHeaders + " bytes");
            over -= originalHeaders;
            originalHeaders = -1;
        }
        if (over > 0 && keyBytes > 0) {
            long keep = Math.max(0, keyBytes - over);
            key = java.util.Arrays.copyOf(key, (int) keep);
            cut.add("key: kept " + keep + " of " + keyBytes + " bytes");
        }
        if (originalHeaders >= 0) {
            for (int i = 0; i < raw.headerKeys.length; i++) {
                headers.add(raw.headerKeys[i], raw.headerValues[i]);
            }
        }
        if (!cut.isEmpty()) {
            headers.add(ZeroLayerHeaders.DLT_TRUNCATED, utf8(String.join("; ", cut)));
        }
        addReason(headers, letter);
        addOrigin(headers, String.valueOf(raw.topic), raw.partition, raw.offset);
        return new ProducerRecord<>(topic, null, null, key, value, headers);
    }

    /** Spring's headers saying why: the exception's class and message. */
    static void addReason(RecordHeaders headers, DeadLetter letter) {
        headers.add(ZeroLayerHeaders.DLT_EXCEPTION_FQCN, utf8(letter.exceptionClass));
        headers.add(ZeroLayerHeaders.DLT_EXCEPTION_MESSAGE, utf8(letter.exceptionMessage));
    }

    /**
     * Spring's headers saying where the record was read: topic, and partition and offset as
     * big-endian int and long.
     */
    static void addOrigin(RecordHeaders headers, String topic, int partition, long offset) {
        headers.add(ZeroLayerHeaders.DLT_ORIGINAL_TOPIC, utf8(topic));
        headers.add(
                ZeroLayerHeaders.DLT_ORIGINAL_PARTITION,
                ByteBuffer.allocate(Integer.BYTES).putInt(partition).array());
        headers.add(
                ZeroLayerHeaders.DLT_ORIGINAL_OFFSET,
                ByteBuffer.allocate(Long.BYTES).putLong(offset).array());
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
