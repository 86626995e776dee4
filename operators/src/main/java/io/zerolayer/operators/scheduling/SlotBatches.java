package io.zerolayer.operators.scheduling;

import io.zerolayer.gpu.hardware.MemoryHeadroom;
import io.zerolayer.operators.execution.BatchRunner;
import io.zerolayer.operators.execution.CompiledGraph;
import io.zerolayer.operators.execution.SliceBoundary;
import io.zerolayer.operators.execution.SlotGraphs;
import io.zerolayer.operators.prompt.PromptReader;
import io.zerolayer.operators.replies.Reply;
import io.zerolayer.operators.replies.ReplyAssembler;
import io.zerolayer.operators.routing.RoutedRequest;
import io.zerolayer.operators.structure.DocumentContent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A slot's micro-batches from its queue to their answers: each request bound to its warm graph
 * (compiled on a miss), grouped by graph, run by the {@link BatchRunner} and answered by {@link
 * BatchAnswers}. Flink-free: what goes out goes through a {@link BatchAnswers.Out}, and which
 * thread runs a batch is the caller's choice ({@link #prepare} and {@link #finish} on the task
 * thread, {@link #executeTogether} on the inference thread: a key's batches, or several keys' in
 * one encoder pass).
 */
public final class SlotBatches {
    private static final Logger LOG = LoggerFactory.getLogger(SlotBatches.class);

    private final SlotGraphs graphs;
    private final MicroBatchPolicy policy;
    private final BatchRunner runner;
    private final MemoryHeadroom headroom;
    private final double pruneBelowFreeRatio;
    private final SlotMetrics metrics;
    private final ReplyAssembler replies;
    private final BatchAnswers answers;

    public SlotBatches(
            SlotGraphs graphs,
            MicroBatchPolicy policy,
            BatchRunner runner,
            MemoryHeadroom headroom,
            double pruneBelowFreeRatio,
            SlotMetrics metrics,
            ReplyAssembler replies,
            BatchAnswers answers) {
        this.graphs = graphs;
        this.policy = policy;
        this.runner = runner;
        this.headroom = headroom;
        this.pruneBelowFreeRatio = pruneBelowFreeRatio;
        this.metrics = metrics;
        this.replies = replies;
        this.answers = answers;
    }

    /** Answers a request FAILED: it is never dropped, and the job keeps going. */
    public void failed(RoutedRequest in, Throwable e, BatchAnswers.Out out) {
        answers.failed(in, null, e, out);
    }

    /** Answers a request past its deadline FAILED; whether it was. */
    public boolean pastDeadline(RoutedRequest in, BatchAnswers.Out out) {
        Reply late = replies.deadlinePassed(in, Instant.now());
        if (late != null) {
            answers.reply(in, late, out);
        }
        return late != null;
    }

    /**
     * A request's graph, warm in this slot: compiled on a miss; its descriptor emitted when it was
     * compiled or ran a new structure.
     *
     * @param arriving the request's first lookup, on arrival: the one a hit is counted for, so the
     *     hit ratio is per request; a compile is counted as a miss whenever it happens
     */
    public SlotGraphs.Warm warm(RoutedRequest in, BatchAnswers.Out out, boolean arriving) {
        SlotGraphs.Warm warm = graphs.lookup(in.decision(), in.request().getPrompt());
        if (warm.compiled()) {
            metrics.compiled(warm.compileMicros());
        } else {
            if (arriving) {
                metrics.cacheHit();
            }
            if (warm.descriptor() != null) {
                metrics.sharedStructure();
            }
        }
        if (warm.descriptor() != null) {
            out.descriptor(warm.descriptor());
        }
        return warm;
    }

    /** A request of a batch, bound to its graph. */
    public record Bound(RoutedRequest in, SlotGraphs.Warm warm, CompiledGraph.BatchInput input) {}

    /**
     * Requests of one graph that run together, bound to it; {@code alone}: one request that runs by
     * itself (strict, or a batch size of 1), never in a pass with others.
     */
    public record GraphBatch(CompiledGraph graph, List<Bound> bound, boolean alone) {
        /** Its estimated padded tokens: its plan's estimate per request, for each request. */
        long paddedTokens() {
            return Math.max(1, graph.plan().encoderTokensPerRequest()) * bound.size();
        }
    }

    /**
     * Binds a batch on the task thread: each request to its warm graph ({@code known} for a batch
     * of one that was just looked up; else looked up again, recompiled if it was evicted or the
     * contracts changed while it waited), grouped by graph. Requests past their deadline or whose
     * graph cannot be bound are answered here; every other one is in exactly one group.
     */
    public List<GraphBatch> prepare(
            List<RoutedRequest> batch, SlotGraphs.Warm known, BatchAnswers.Out out) {
        long now = System.currentTimeMillis();
        double free = headroom.freeRatio();
        boolean prune = free < pruneBelowFreeRatio;
        if (prune) {
            LOG.debug("Pruning optional nodes: {}", headroom.describe());
        }
        // each graph's requests run together; a strict request, or any with a batch size of 1,
        // runs alone
        record Group(CompiledGraph graph, String alone) {}
        Map<Group, List<Bound>> byGraph = new LinkedHashMap<>();
        for (RoutedRequest in : batch) {
            if (in.queuedAtMillis() > 0) {
                metrics.queuedFor(now - in.queuedAtMillis());
            }
            if (pastDeadline(in, out)) {
                continue;
            }
            try {
                // looked up again (not counted: its arrival was) in case it was evicted or the
                // contracts changed while it waited
                SlotGraphs.Warm warm = known != null ? known : warm(in, out, false);
                CompiledGraph.BatchInput input;
                if (in.safeMode()) {
                    String text =
                            PromptReader.plainText(
                                    in.request().getPrompt(), graphs.safeModeMaxChars());
                    input =
                            new CompiledGraph.BatchInput(
                                    text,
                                    DocumentContent.plainText(text),
                                    policy.modeOf(in.request(), prune));
                } else {
                    CompiledGraph.RunMode mode = policy.modeOf(in.request(), prune);
                    input =
                            new CompiledGraph.BatchInput(
                                    in.request().getPrompt(),
                                    warm.content(),
                                    in.decision().part() != null ? mode.asPart() : mode);
                }
                boolean alone = policy.runsAlone(in.request());
                byGraph.computeIfAbsent(
                                new Group(warm.graph(), alone ? in.request().getRequestId() : null),
                                g -> new ArrayList<>())
                        .add(new Bound(in, warm, input));
            } catch (RuntimeException e) {
                failed(in, e, out);
            }
        }
        List<GraphBatch> groups = new ArrayList<>();
        byGraph.forEach(
                (group, bound) ->
                        groups.add(new GraphBatch(group.graph(), bound, group.alone() != null)));
        return groups;
    }

    /** A batch and how it ran. */
    public record Executed(GraphBatch batch, BatchRunner.Outcome outcome) {}

    /**
     * Runs a batch, its encoder runs cut by {@code boundary}'s slice and other batches let in
     * between them: see {@link BatchRunner}.
     */
    Executed execute(GraphBatch batch, SliceBoundary boundary) {
        return new Executed(
                batch,
                runner.run(
                        batch.graph(),
                        batch.bound().stream().map(Bound::input).toList(),
                        batch.bound().stream().map(b -> b.in().request().getDeadline()).toList(),
                        boundary));
    }

    /**
     * Runs batches on one pass per encoder group: those not alone whose graphs share an encoder
     * session run together ({@link BatchRunner#runTogether}), the rest each by itself.
     *
     * @return how each ran, in order
     */
    public List<Executed> executeTogether(List<GraphBatch> batches, SliceBoundary boundary) {
        Executed[] executed = new Executed[batches.size()];
        Map<CompiledGraph.EncoderGroup, List<Integer>> byGroup = new LinkedHashMap<>();
        for (int i = 0; i < batches.size(); i++) {
            GraphBatch b = batches.get(i);
            if (b.alone()) {
                executed[i] = execute(b, boundary);
            } else {
                byGroup.computeIfAbsent(b.graph().encoderGroup(), g -> new ArrayList<>()).add(i);
            }
        }
        for (List<Integer> group : byGroup.values()) {
            List<CompiledGraph.Part> parts = new ArrayList<>(group.size());
            List<Instant> deadlines = new ArrayList<>();
            for (int i : group) {
                GraphBatch b = batches.get(i);
                parts.add(
                        new CompiledGraph.Part(
                                b.graph(), b.bound().stream().map(Bound::input).toList()));
                b.bound().forEach(r -> deadlines.add(r.in().request().getDeadline()));
            }
            List<BatchRunner.Outcome> outcomes = runner.runTogether(parts, deadlines, boundary);
            for (int k = 0; k < group.size(); k++) {
                executed[group.get(k)] = new Executed(batches.get(group.get(k)), outcomes.get(k));
            }
            if (group.size() > 1) {
                metrics.passShared(parts.stream().map(p -> p.graph()).distinct().count());
            }
        }
        return List.of(executed);
    }

    /** Answers a batch that ran: one reply per request, its cost records and the metrics. */
    public void finish(Executed executed, BatchAnswers.Out out) {
        List<Bound> bound = executed.batch().bound();
        answers.batch(
                executed.batch().graph(),
                bound.stream().map(Bound::in).toList(),
                bound.stream().mapToLong(b -> b.warm().compileMicros()).toArray(),
                executed.outcome(),
                out);
    }
}
