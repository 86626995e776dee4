package io.zerolayer.operators.compiler;

import io.zerolayer.schemas.GraphNode;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One node of an execution graph.
 *
 * @param kind tokenize, chunk, encode, pool or decode
 * @param model encoder model id for encode nodes, else null
 */
public record PlanNode(
        String nodeId, String kind, String model, List<String> inputs, Map<String, String> params) {
    public PlanNode {
        inputs = List.copyOf(inputs);
        params = new TreeMap<>(params);
    }

    public GraphNode toAvro() {
        return new GraphNode(nodeId, kind, model, inputs, params);
    }
}
