package io.zerolayer.operators.replies;

import io.zerolayer.operators.compiler.RequestDecision;
import io.zerolayer.operators.contracts.DiagnosticCodes;
import io.zerolayer.operators.execution.CompiledGraph;
import io.zerolayer.operators.execution.CostRecords;
import io.zerolayer.operators.execution.GraphRun;
import io.zerolayer.operators.execution.NodeRun;
import io.zerolayer.operators.prompt.PromptDiagnostic;
import io.zerolayer.operators.routing.RoutedRequest;
import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.AnalysisResponse;
import io.zerolayer.schemas.CostTotal;
import io.zerolayer.schemas.Diagnostic;
import io.zerolayer.schemas.Fidelity;
import io.zerolayer.schemas.KernelCostRecord;
import io.zerolayer.schemas.ResponseStatus;
import io.zerolayer.schemas.Timings;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * What an executor slot sends for a request: the reply, and for one that ran, one kernel cost
 * record per executed node. It builds values only, so it needs no Flink: the function emits them.
 *
 * <p>A reply's fidelity is FULL, SAFE_MODE for a request the classifier sent to the safe graph,
 * REDUCED when the fallback path answered (with the note saying why) or optional nodes were pruned
 * under memory pressure (with a note naming them). A request that failed or whose deadline passed
 * is answered FAILED with a stable diagnostic code.
 */
public final class ReplyAssembler {
    /** A request that ran: its reply and the cost records of its kernels. */
    public record Answer(Reply reply, List<KernelCostRecord> costs, boolean pruned) {}

    private final String hardwareProfile;
    private final Supplier<String> headroom;
    private final double pruneBelowFreeRatio;

    /**
     * @param hardwareProfile the slot's hardware profile id, on every cost record
     * @param headroom describes the memory headroom when nodes were pruned
     * @param pruneBelowFreeRatio the free-memory ratio below which optional nodes are pruned
     */
    public ReplyAssembler(
            String hardwareProfile, Supplier<String> headroom, double pruneBelowFreeRatio) {
        this.hardwareProfile = hardwareProfile;
        this.headroom = headroom;
        this.pruneBelowFreeRatio = pruneBelowFreeRatio;
    }

    /**
     * The answer to a request that ran.
     *
     * @param fallbackNote why the fallback path answered, or null for the main path
     * @param compileMicros how long compiling its graph took when it was compiled for it, else 0
     */
    public Answer ok(
            RoutedRequest in,
            CompiledGraph graph,
            GraphRun run,
            Diagnostic fallbackNote,
            long executeMicros,
            long compileMicros) {
        AnalysisRequest request = in.request();
        List<Diagnostic> diagnostics =
                new ArrayList<>(
                        in.decision().warnings().stream().map(PromptDiagnostic::toAvro).toList());
        Fidelity fidelity = in.safeMode() ? Fidelity.SAFE_MODE : Fidelity.FULL;
        if (fallbackNote != null) {
            diagnostics.add(fallbackNote);
            fidelity = Fidelity.REDUCED;
        }
        if (run.note() != null) {
            diagnostics.add(
                    new Diagnostic(
                            DiagnosticCodes.BELOW_MIN_PROBABILITY, "info", 0, 0, run.note(), null));
        }
        boolean pruned = !run.prunedNodes().isEmpty();
        if (pruned) {
            diagnostics.add(
                    new Diagnostic(
                            DiagnosticCodes.NODES_PRUNED,
                            "warning",
                            0,
                            0,
                            "Optional nodes skipped under memory pressure ("
                                    + headroom.get()
                                    + ", threshold "
                                    + Math.round(pruneBelowFreeRatio * 100)
                                    + "%): "
                                    + String.join(", ", run.prunedNodes()),
                            null));
            if (fidelity == Fidelity.FULL) {
                fidelity = Fidelity.REDUCED;
            }
        }
        Map<String, String> attributes =
                new TreeMap<>(request.getAttributes() == null ? Map.of() : request.getAttributes());
        attributes.putAll(run.annotations());
        AnalysisResponse response =
                Responses.base(request, in.classifyMicros())
                        .setGraphId(graph.plan().graphId())
                        .setStatus(ResponseStatus.OK)
                        .setFidelity(fidelity)
                        .setTask(graph.plan().task())
                        .setOutputFormat(graph.plan().outputFormat())
                        .setOutput(run.output())
                        .setAttributes(attributes)
                        .setDiagnostics(diagnostics)
                        .setTimings(
                                new Timings(
                                        request.getSubmittedAt(),
                                        Instant.now(),
                                        in.classifyMicros(),
                                        Math.max(in.compileMicros(), compileMicros),
                                        executeMicros))
                        .setCost(
                                new CostTotal(
                                        run.nodeRuns().size(),
                                        run.kernelNanos(),
                                        run.flops(),
                                        run.nanoUsd()))
                        .build();
        List<KernelCostRecord> costs = new ArrayList<>(run.nodeRuns().size());
        RequestDecision.Part part = in.decision().part();
        for (NodeRun node : run.nodeRuns()) {
            costs.add(
                    CostRecords.of(
                            request,
                            graph.plan().graphId(),
                            // a split request's parts ran the same nodes: each record its own id
                            part == null ? node : node.withNodeId(partNodeId(node.nodeId(), part)),
                            fallbackNote != null ? "cpu" : graph.device(),
                            hardwareProfile,
                            graph.prices().version()));
        }
        return new Answer(new Reply(response, in.route()), costs, pruned);
    }

    /** The node id of a part's node: {@code encode#part2/4}. */
    static String partNodeId(String nodeId, RequestDecision.Part part) {
        return nodeId + "#part" + (part.index() + 1) + "/" + part.count();
    }

    /** A request that failed: never dropped, answered FAILED with the reason. */
    public Reply failed(RoutedRequest in, String graphId, Throwable e) {
        return new Reply(
                Responses.failed(
                        in.request(),
                        graphId,
                        DiagnosticCodes.EXECUTION_FAILED,
                        "Execution failed: " + e.getMessage(),
                        in.classifyMicros()),
                in.route());
    }

    /**
     * The FAILED reply of a request whose deadline passed at {@code now}, or null if it has not.
     */
    public Reply deadlinePassed(RoutedRequest in, Instant now) {
        Instant deadline = in.request().getDeadline();
        if (deadline == null || !now.isAfter(deadline)) {
            return null;
        }
        return new Reply(
                Responses.failed(
                        in.request(),
                        null,
                        DiagnosticCodes.DEADLINE_PASSED,
                        "Deadline " + deadline + " passed before the request ran",
                        in.classifyMicros()),
                in.route());
    }
}
