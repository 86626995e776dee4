package io.zerolayer.operators.execution;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Measured durations of a compiled graph's nodes in this slot: the last {@value #WINDOW} runs of
 * each node, for a p50 that follows the current load. Single-threaded, like the operator.
 */
public final class NodeTimings {
    static final int WINDOW = 64;

    private final Map<String, long[]> micros = new LinkedHashMap<>();
    private long runs;

    public void record(GraphRun run) {
        runs++;
        for (NodeRun node : run.nodeRuns()) {
            long[] ring = micros.computeIfAbsent(node.nodeId(), id -> new long[WINDOW]);
            ring[(int) ((runs - 1) % WINDOW)] = node.durationNanos() / 1_000;
        }
    }

    public long runs() {
        return runs;
    }

    /** Node id → median of its recent durations in microseconds. */
    public Map<String, Long> p50Micros() {
        Map<String, Long> out = new LinkedHashMap<>();
        int n = (int) Math.min(runs, WINDOW);
        micros.forEach(
                (id, ring) -> {
                    long[] recent = Arrays.copyOf(ring, n);
                    Arrays.sort(recent);
                    out.put(id, recent[n / 2]);
                });
        return out;
    }

    /** Whether the descriptor should be republished with fresh measurements after this run. */
    public boolean worthPublishing() {
        return runs == 5 || runs == 50 || runs == 500 || (runs > 0 && runs % 5_000 == 0);
    }
}
