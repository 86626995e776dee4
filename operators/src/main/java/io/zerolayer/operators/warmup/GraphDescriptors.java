package io.zerolayer.operators.warmup;

import io.zerolayer.operators.kafka.CommittedRecords;
import io.zerolayer.operators.kafka.KafkaConnection;
import io.zerolayer.schemas.ExecutionGraph;
import java.io.Serializable;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The compacted graphs topic, read from the start to its current end: the latest descriptor of
 * every graph id, with the structures every descriptor of it names. Used by {@code zerolayer
 * inspect} and by executors recompiling on restart.
 *
 * @param kafka the Kafka cluster
 * @param topic the graphs topic
 */
public record GraphDescriptors(KafkaConnection kafka, String topic) implements Serializable {

    /**
     * Graph id → its latest descriptor, whose structures are those of every descriptor of the id
     * still on the topic, first seen first: each slot publishes the structures it ran, and the
     * latest record may be another slot's. Records that are not descriptors are skipped.
     */
    public Map<String, ExecutionGraph> readLatest(Duration timeout) {
        Map<String, ExecutionGraph> latest = new LinkedHashMap<>();
        Map<String, Set<String>> structures = new LinkedHashMap<>();
        CommittedRecords.forEach(
                kafka,
                topic,
                ExecutionGraph.class,
                timeout,
                (g, at) -> {
                    latest.put(g.getGraphId(), g);
                    structures
                            .computeIfAbsent(g.getGraphId(), id -> new LinkedHashSet<>())
                            .addAll(g.getStructures());
                });
        latest.forEach((id, g) -> g.setStructures(List.copyOf(structures.get(id))));
        return latest;
    }
}
