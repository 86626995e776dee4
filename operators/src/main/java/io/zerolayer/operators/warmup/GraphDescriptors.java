package io.zerolayer.operators.warmup;

import io.zerolayer.operators.kafka.CommittedRecords;
import io.zerolayer.schemas.ExecutionGraph;
import java.io.Serializable;
import java.time.Duration;
import java.util.Map;

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
        return CommittedRecords.readLatest(
                bootstrapServers, topic, ExecutionGraph.class, ExecutionGraph::getGraphId, timeout);
    }
}
