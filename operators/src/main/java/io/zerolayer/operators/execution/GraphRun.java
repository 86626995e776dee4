package io.zerolayer.operators.execution;

import java.util.List;

/**
 * The outcome of executing a compiled graph for one request.
 *
 * @param prunedNodes optional nodes skipped under memory pressure (the answer is REDUCED)
 * @param annotations what post-decode nodes add to the response's attributes (audit, redaction)
 * @param note what the decoder says of its answer for the reply's diagnostics (a classification
 *     answered {@code unknown}), or null
 */
public record GraphRun(
        String output,
        List<NodeRun> nodeRuns,
        List<String> prunedNodes,
        java.util.Map<String, String> annotations,
        String note) {

    public GraphRun(String output, List<NodeRun> nodeRuns) {
        this(output, nodeRuns, List.of(), java.util.Map.of(), null);
    }

    public long kernelNanos() {
        return nodeRuns.stream().mapToLong(NodeRun::durationNanos).sum();
    }

    /** The request's bill: the sum of its nodes' nano-USD. */
    public long nanoUsd() {
        return nodeRuns.stream().mapToLong(r -> r.money().total()).sum();
    }

    /** Sum of the nodes' FLOPs, or null when no node could derive any. */
    public Long flops() {
        return nodeRuns.stream().anyMatch(r -> r.flops() != null)
                ? nodeRuns.stream().filter(r -> r.flops() != null).mapToLong(NodeRun::flops).sum()
                : null;
    }
}
