package io.zerolayer.operators.kafka;

import io.zerolayer.schemas.serde.SingleObjectCodec;
import io.zerolayer.schemas.serde.UndecodableRecordException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Function;
import org.apache.avro.specific.SpecificRecordBase;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * A topic's committed records ({@code read_committed}), read from the start to its end as it was
 * when reading began, the latest per id: what a compacted topic holds, and a replayed record
 * counted once. Records of another type are skipped.
 */
public final class CommittedRecords {
    private CommittedRecords() {}

    /** What reading a topic's records hands back, one call a record. */
    public interface Visitor<T> {
        /** A record of the type asked for, read at {@code at} ({@code partition/offset}). */
        void record(T record, String at);

        /** A record at {@code at} that is not of the type asked for. */
        default void undecodable(String at, String why) {}
    }

    /**
     * @param idOf the id a record replaces earlier records by
     * @throws IllegalArgumentException when the topic does not exist
     */
    public static <T extends SpecificRecordBase> Map<String, T> readLatest(
            KafkaConnection kafka,
            String topic,
            Class<T> type,
            Function<T, String> idOf,
            Duration timeout) {
        Map<String, T> latest = new LinkedHashMap<>();
        forEach(
                kafka,
                topic,
                type,
                timeout,
                (record, at) -> latest.put(idOf.apply(record), record));
        return latest;
    }

    /**
     * Hands every committed record of {@code topic}, from the start to its end as it was when
     * reading began, to {@code visitor}: partition by partition in offset order, the partitions
     * interleaved.
     *
     * @return whether every partition was read to that end within {@code timeout}
     * @throws IllegalArgumentException when the topic does not exist
     */
    public static <T extends SpecificRecordBase> boolean forEach(
            KafkaConnection kafka,
            String topic,
            Class<T> type,
            Duration timeout,
            Visitor<T> visitor) {
        Properties props = kafka.properties();
        props.put("isolation.level", "read_committed");
        SingleObjectCodec<T> codec = SingleObjectCodec.of(type);
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(
                        props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            var infos = consumer.partitionsFor(topic, timeout);
            if (infos == null || infos.isEmpty()) {
                throw new IllegalArgumentException("No topic " + topic + " on " + kafka);
            }
            List<TopicPartition> partitions =
                    infos.stream().map(i -> new TopicPartition(i.topic(), i.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
            long deadline = System.nanoTime() + timeout.toNanos();
            boolean behind;
            while ((behind =
                            partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp)))
                    && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    String at = r.partition() + "/" + r.offset();
                    T record;
                    try {
                        record = codec.decode(r.value());
                    } catch (UndecodableRecordException e) {
                        visitor.undecodable(at, e.getMessage());
                        continue;
                    }
                    visitor.record(record, at);
                }
            }
            return !behind;
        }
    }
}
