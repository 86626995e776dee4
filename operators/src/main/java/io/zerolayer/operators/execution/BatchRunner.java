package io.zerolayer.operators.execution;

import io.zerolayer.gpu.EncoderException;
import io.zerolayer.operators.contracts.DiagnosticCodes;
import io.zerolayer.schemas.Diagnostic;
import java.time.Instant;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one micro-batch of a graph: on the main path, bounded by the main-path timeout and the
 * earliest deadline of its requests; on the graph's fallback (CPU, answered with fidelity REDUCED)
 * when the main path fails or overruns; and reports a failure when both fail or when something
 * other than the encoder breaks, so that the batch's requests are answered FAILED rather than the
 * task failing on every restore.
 *
 * <p>Touches no Flink state, collector or metric: it runs on a slot's inference thread. One runner
 * per slot, called from one thread at a time.
 */
public final class BatchRunner {
    private static final Logger LOG = LoggerFactory.getLogger(BatchRunner.class);

    /**
     * Faults a test can inject: the main path of every n-th batch throws (0: never); the fallback
     * throws too.
     */
    public record Faults(int failMainEveryNthBatch, boolean failFallback) {
        public static final Faults NONE = new Faults(0, false);
    }

    /**
     * How a batch ran: one outcome per request ({@code fellBack}: on the fallback path, with the
     * note that says why), or {@code failure} when it could not run.
     */
    public record Outcome(
            List<CompiledGraph.BatchOutcome> outcomes,
            Diagnostic fallbackNote,
            Throwable failure,
            boolean fellBack,
            long executeMicros,
            int sequences) {
        static Outcome failed(Throwable failure, boolean fellBack) {
            return new Outcome(null, null, failure, fellBack, 0, 0);
        }
    }

    private final long mainPathTimeoutMillis;
    private final Faults faults;
    private long batchesRun;

    /**
     * @param mainPathTimeoutMillis longest a batch may run on the main path (0: no limit)
     */
    public BatchRunner(long mainPathTimeoutMillis, Faults faults) {
        this.mainPathTimeoutMillis = mainPathTimeoutMillis;
        this.faults = faults;
    }

    /**
     * Runs the batch with no pause in it.
     *
     * @param deadlines each request's deadline, or null where it has none
     */
    public Outcome run(
            CompiledGraph graph, List<CompiledGraph.BatchInput> inputs, List<Instant> deadlines) {
        return run(graph, inputs, deadlines, SliceBoundary.NONE);
    }

    /**
     * Runs the batch, letting other work run at {@code boundary} between its encoder runs; the time
     * that work takes counts neither to the batch's time limit nor to its execute time.
     *
     * @param deadlines each request's deadline, or null where it has none
     */
    public Outcome run(
            CompiledGraph graph,
            List<CompiledGraph.BatchInput> inputs,
            List<Instant> deadlines,
            SliceBoundary boundary) {
        return runTogether(List.of(new CompiledGraph.Part(graph, inputs)), deadlines, boundary)
                .get(0);
    }

    /**
     * Runs batches of several graphs of one encoder group in one pass ({@link
     * CompiledGraph#executeTogether}), as one batch: bounded by the earliest deadline of all their
     * requests, and, when the encoder fails, each batch run again on its own graph's fallback.
     *
     * @param deadlines the deadlines of all their requests (null where one has none)
     * @return one outcome per part, in order
     */
    public List<Outcome> runTogether(
            List<CompiledGraph.Part> parts, List<Instant> deadlines, SliceBoundary boundary) {
        batchesRun++;
        long[] paused = {0};
        SliceBoundary counted =
                new SliceBoundary(
                        boundary.sliceMicros(),
                        () -> {
                            long p = boundary.between();
                            paused[0] += p;
                            return p;
                        });
        long start = System.nanoTime();
        try {
            if (faults.failMainEveryNthBatch() > 0
                    && batchesRun % faults.failMainEveryNthBatch() == 0) {
                throw new EncoderException(
                        "injected fault (fault-injection.fail-main-every-nth-batch)");
            }
            List<List<CompiledGraph.BatchOutcome>> outcomes =
                    CompiledGraph.executeTogether(
                            parts,
                            mainPathDeadline(
                                    start,
                                    mainPathTimeoutMillis,
                                    deadlines,
                                    System.currentTimeMillis()),
                            counted);
            long micros = (System.nanoTime() - start - paused[0]) / 1_000;
            int sequences = parts.get(0).graph().lastBatchSequences();
            return outcomes.stream()
                    .map(o -> new Outcome(o, null, null, false, micros, sequences))
                    .toList();
        } catch (EncoderException | OutOfMemoryError e) {
            List<Outcome> fellBack = new java.util.ArrayList<>(parts.size());
            for (CompiledGraph.Part part : parts) {
                fellBack.add(onFallback(part.graph(), part.inputs(), e, start + paused[0]));
            }
            return fellBack;
        } catch (RuntimeException bug) {
            // not the encoder's own failure: a bug that this batch's content may trigger again on
            // every restore, so its requests are answered FAILED instead of failing the task
            LOG.error(
                    "Graph {} failed on a batch of {} ({} graphs in the pass); answering it"
                            + " FAILED",
                    shortId(parts.get(0).graph()),
                    parts.stream().mapToInt(p -> p.inputs().size()).sum(),
                    parts.size(),
                    bug);
            return parts.stream().map(p -> Outcome.failed(bug, false)).toList();
        }
    }

    private Outcome onFallback(
            CompiledGraph graph, List<CompiledGraph.BatchInput> inputs, Throwable e, long start) {
        CompiledGraph ran = graph.fallback();
        String why =
                e instanceof EncoderException ee && ee.overran() ? "overran its time" : "failed";
        LOG.warn(
                "Main path of graph {} {} on a batch of {}; running it on the fallback: {}",
                shortId(graph),
                why,
                inputs.size(),
                e.getMessage());
        if (ran == null) {
            return Outcome.failed(e, true);
        }
        Diagnostic note =
                new Diagnostic(
                        DiagnosticCodes.FALLBACK_USED,
                        "warning",
                        0,
                        0,
                        "The main path "
                                + why
                                + " ("
                                + e.getMessage()
                                + "); answered by the fallback path: "
                                + ran.plan().node("encode").model()
                                + " on the CPU",
                        null);
        try {
            if (faults.failFallback()) {
                throw new EncoderException("injected fault (fault-injection.fail-fallback)");
            }
            List<CompiledGraph.BatchOutcome> outcomes = ran.executeBatch(inputs);
            return new Outcome(
                    outcomes,
                    note,
                    null,
                    true,
                    (System.nanoTime() - start) / 1_000,
                    ran.lastBatchSequences());
        } catch (EncoderException | OutOfMemoryError fallbackError) {
            LOG.warn(
                    "Fallback of graph {} failed too: {}",
                    shortId(graph),
                    fallbackError.getMessage());
            return Outcome.failed(
                    new IllegalStateException(
                            "main path: "
                                    + e.getMessage()
                                    + "; fallback: "
                                    + fallbackError.getMessage()),
                    true);
        }
    }

    /**
     * When the main path must be cancelled (System.nanoTime() scale): the earliest deadline among
     * the batch's requests, bounded by the main-path timeout; Long.MAX_VALUE for neither.
     */
    static long mainPathDeadline(
            long startNanos, long timeoutMillis, List<Instant> deadlines, long nowMillis) {
        long limit = Long.MAX_VALUE;
        if (timeoutMillis > 0) {
            limit = startNanos + timeoutMillis * 1_000_000;
        }
        for (Instant deadline : deadlines) {
            if (deadline != null) {
                long left = deadline.toEpochMilli() - nowMillis;
                limit = Math.min(limit, startNanos + Math.max(0, left) * 1_000_000);
            }
        }
        return limit;
    }

    private static String shortId(CompiledGraph graph) {
        return graph.plan().graphId().substring(0, 12);
    }
}
