package io.zerolayer.operators.flink;

import java.io.Serializable;

/**
 * How the executor runs compiled graphs: micro-batching, the main path's time limit and fault
 * injection for tests.
 *
 * @param batchSize requests per micro-batch; 0 takes each graph's own {@code batch-size} (chosen by
 *     the compiler from the cost model), a positive value replaces it in every graph
 * @param maxQueueDelayMillis longest a request waits for its batch to fill before the batch runs
 *     anyway
 * @param mainPathTimeoutMillis longest one batch may run on the main path before it is cancelled
 *     and run on the fallback; 0 for no limit besides the requests' deadlines
 * @param failMainEveryNthBatch fault injection: the main path of every n-th batch of a slot throws
 *     (0: off)
 * @param failFallback fault injection: the fallback path throws too, so failed batches are answered
 *     FAILED
 */
public record ExecutionSettings(
        int batchSize,
        long maxQueueDelayMillis,
        long mainPathTimeoutMillis,
        int failMainEveryNthBatch,
        boolean failFallback)
        implements Serializable {

    /** The plan's batch sizes, 5 ms of queueing at most, no time limit, no faults. */
    public static final ExecutionSettings DEFAULTS = new ExecutionSettings(0, 5, 0, 0, false);

    public ExecutionSettings {
        if (batchSize < 0 || maxQueueDelayMillis < 0 || mainPathTimeoutMillis < 0) {
            throw new IllegalArgumentException(
                    "Batch size, queue delay and main-path timeout must not be negative: "
                            + batchSize
                            + ", "
                            + maxQueueDelayMillis
                            + " ms, "
                            + mainPathTimeoutMillis
                            + " ms");
        }
        if (failMainEveryNthBatch < 0) {
            throw new IllegalArgumentException(
                    "fault-injection.fail-main-every-nth-batch must be 0 (off) or positive");
        }
    }

    public ExecutionSettings withBatchSize(int size) {
        return new ExecutionSettings(
                size,
                maxQueueDelayMillis,
                mainPathTimeoutMillis,
                failMainEveryNthBatch,
                failFallback);
    }

    public ExecutionSettings withFaults(int failMainEveryNthBatch, boolean failFallback) {
        return new ExecutionSettings(
                batchSize,
                maxQueueDelayMillis,
                mainPathTimeoutMillis,
                failMainEveryNthBatch,
                failFallback);
    }
}
