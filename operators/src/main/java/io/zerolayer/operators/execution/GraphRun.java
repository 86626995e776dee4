package io.zerolayer.operators.execution;

import java.util.List;

/** The outcome of executing a compiled graph for one request. */
public record GraphRun(String output, List<NodeRun> nodeRuns) {
    public long kernelNanos() {
        return nodeRuns.stream().mapToLong(NodeRun::durationNanos).sum();
    }

    /** Sum of the nodes' FLOPs, or null when no node could derive any. */
    public Long flops() {
        return nodeRuns.stream().anyMatch(r -> r.flops() != null)
                ? nodeRuns.stream().filter(r -> r.flops() != null).mapToLong(NodeRun::flops).sum()
                : null;
    }
}
