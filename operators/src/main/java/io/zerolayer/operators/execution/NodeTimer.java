package io.zerolayer.operators.execution;

/** Times one node of a request's run: when it started, how long it took, what it processed. */
final class NodeTimer {
    private long startedAtMillis = System.currentTimeMillis();
    private long startNanos = System.nanoTime();

    void restart() {
        startedAtMillis = System.currentTimeMillis();
        startNanos = System.nanoTime();
    }

    NodeRun run(
            String nodeId,
            String kind,
            String model,
            int items,
            Long tokens,
            Long flops,
            Long bytes) {
        return new NodeRun(
                nodeId,
                kind,
                model,
                startedAtMillis,
                System.nanoTime() - startNanos,
                items,
                tokens,
                flops,
                bytes);
    }
}
