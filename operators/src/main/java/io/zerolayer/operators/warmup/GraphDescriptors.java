package io.zerolayer.operators.warmup;

import io.zerolayer.schemas.ExecutionGraph;
import io.zerolayer.schemas.serde.SingleObjectCodec;
import io.zerolayer.schemas.serde.UndecodableRecordException;
import java.io.Serializable;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The compacted graphs topic, read from the start to its current end: the latest descriptor of
 * every graph id. Used by {@code zerolayer inspect} and by executors recompiling on restart.
 *
 * @param bootstrapServers Kafka bootstrap servers
 * @param topic the graphs topic
 */
public record GraphDescriptors(String bootstrapServers, String topic) implements Serializable {

    /** Graph id → its latest descriptor; records that are not descriptors are skipped. */
    public Map<String, ExecutionGraph> readLatest(Duration timeout) {
        Properties props = new Properties();
        props.put("bootstrap.servers", bootstrapServers);
        props.put("isolation.level", "read_committed");
        SingleObjectCodec<ExecutionGraph> codec = SingleObjectCodec.of(ExecutionGraph.class);
        Map<String, ExecutionGraph> latest = new LinkedHashMap<>();
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
                        ExecutionGraph g = codec.decode(r.value());
                        latest.put(g.getGraphId(), g);
                    } catch (UndecodableRecordException e) {
                        // not a descriptor; skip it
                    }
                }
            }
        }
        return latest;
    }
}
