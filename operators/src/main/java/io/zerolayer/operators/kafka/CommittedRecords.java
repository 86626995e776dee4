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

    /**
     * @param idOf the id a record replaces earlier records by
     * @throws IllegalArgumentException when the topic does not exist
     */
    public static <T extends SpecificRecordBase> Map<String, T> readLatest(
            String bootstrapServers,
            String topic,
            Class<T> type,
            Function<T, String> idOf,
            Duration timeout) {
        Properties props = new Properties();
        props.put("bootstrap.servers", bootstrapServers);
        props.put("isolation.level", "read_committed");
        SingleObjectCodec<T> codec = SingleObjectCodec.of(type);
        Map<String, T> latest = new LinkedHashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(
                        props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            var infos = consumer.partitionsFor(topic, timeout);
            if (infos == null || infos.isEmpty()) {
                throw new IllegalArgumentException("No topic " + topic + " on " + bootstrapServers);
            }
            List<TopicPartition> partitions =
                    infos.stream().map(i -> new TopicPartition(i.topic(), i.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
            long deadline = System.nanoTime() + timeout.toNanos();
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))
                    && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    try {
                        T record = codec.decode(r.value());
                        latest.put(idOf.apply(record), record);
                    } catch (UndecodableRecordException e) {
                        // not one of ours; skip it
                    }
                }
            }
        }
        return latest;
    }
}
