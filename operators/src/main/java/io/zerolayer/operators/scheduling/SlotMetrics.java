package io.zerolayer.operators.scheduling;

import io.zerolayer.operators.execution.BatchRunner;
import io.zerolayer.operators.execution.NodeRun;
import io.zerolayer.schemas.AnalysisResponse;
import java.util.List;

/**
 * What an executor slot reports as it compiles graphs, runs batches and answers requests. The Flink
 * adapter turns these into the slot's metrics; a test can count them.
 */
public interface SlotMetrics {
    /** A request whose graph was warm in the slot. */
    default void cacheHit() {}

    /** A request whose structure's plan another graph id of the slot already compiled. */
    default void sharedStructure() {}

    /** A graph compiled on arrival, in {@code compileMicros}. */
    default void compiled(long compileMicros) {}

    /** A request waited {@code millis} in the queue for its micro-batch. */
    default void queuedFor(long millis) {}

    /** One encoder pass ran the batches of {@code graphs} graphs together. */
    default void passShared(long graphs) {}

    /** A batch of {@code requests} that ran (or failed). */
    default void batchRan(int requests, BatchRunner.Outcome outcome) {}

    /** A request whose optional nodes were skipped to save memory. */
    default void prunedRequest() {}

    /** The kernels one request ran: their durations, and their cost to its tenant. */
    default void kernels(String tenant, List<NodeRun> nodes) {}

    /** A response sent, by its outcome, {@code millis} after the request reached the slot. */
    default void replied(AnalysisResponse response, long millis) {}
}
