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
    void cacheHit();

    /** A request whose structure's plan another graph id of the slot already compiled. */
    void sharedStructure();

    /** A graph compiled on arrival, in {@code compileMicros}. */
    void compiled(long compileMicros);

    /** A request waited {@code millis} in the queue for its micro-batch. */
    void queuedFor(long millis);

    /** One encoder pass ran the batches of {@code graphs} graphs together. */
    void passShared(long graphs);

    /** A batch of {@code requests} that ran (or failed). */
    void batchRan(int requests, BatchRunner.Outcome outcome);

    /** A request whose optional nodes were skipped to save memory. */
    void prunedRequest();

    /** The kernels one request ran: their durations, and their cost to its tenant. */
    void kernels(String tenant, List<NodeRun> nodes);

    /** A response sent, by its outcome, {@code millis} after the request reached the slot. */
    void replied(AnalysisResponse response, long millis);

    /** Reports nothing. */
    SlotMetrics NONE =
            new SlotMetrics() {
                @Override
                public void cacheHit() {}

                @Override
                public void sharedStructure() {}

                @Override
                public void queuedFor(long millis) {}

                @Override
                public void passShared(long graphs) {}

                @Override
                public void compiled(long compileMicros) {}

                @Override
                public void batchRan(int requests, BatchRunner.Outcome outcome) {}

                @Override
                public void prunedRequest() {}

                @Override
                public void kernels(String tenant, List<NodeRun> nodes) {}

                @Override
                public void replied(AnalysisResponse response, long millis) {}
            };
}
