package io.zerolayer.operators.replies;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.zerolayer.operators.tasks.DocumentTask;
import io.zerolayer.schemas.AnalysisResponse;
import io.zerolayer.schemas.CostTotal;
import io.zerolayer.schemas.Diagnostic;
import io.zerolayer.schemas.Fidelity;
import io.zerolayer.schemas.ResponseStatus;
import io.zerolayer.schemas.Timings;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The one reply of a split request, from its parts' replies: OK with the parts' results combined by
 * the request's decoder ({@link DocumentTask#combineParts}, in the request's output format) when
 * every part is OK; else the worst part's status (FAILED over REJECTED) and no output. Either way
 * it carries every part's diagnostics once, the worst fidelity, and the sum of the parts' costs, so
 * the reply's cost is what its parts' cost records add up to. Its execute time is the longest
 * part's (they ran side by side), its compile time the longest too. Flink-free.
 */
public final class SplitReplies {
    private static final ObjectMapper JSON = new ObjectMapper();

    private SplitReplies() {}

    /**
     * The request's reply.
     *
     * @param parts its parts' replies, one per part in any order
     * @throws IllegalArgumentException when they are not all the parts of one request
     */
    public static Reply combine(List<Reply> parts) {
        return combine(parts, null);
    }

    /**
     * The request's reply FAILED because combining its parts failed ({@code why}), with their
     * diagnostics and costs.
     */
    public static Reply failed(List<Reply> parts, RuntimeException why) {
        return combine(parts, why);
    }

    private static Reply combine(List<Reply> parts, RuntimeException failure) {
        Reply[] byIndex = inOrder(parts, failure);
        AnalysisResponse first = byIndex[0].response;
        Totals t = new Totals(first);
        for (Reply part : byIndex) {
            t.add(part.response);
        }
        if (failure != null) {
            t.status = ResponseStatus.FAILED;
            t.worst = first;
            t.diagnostics.add(
                    new Diagnostic(
                            io.zerolayer.operators.contracts.DiagnosticCodes.EXECUTION_FAILED,
                            "error",
                            0,
                            0,
                            "Combining the results of the request's parts failed: "
                                    + failure.getMessage(),
                            null));
        }
        // whether the whole is unknown is the combined result's to say, not a part's
        t.diagnostics.removeIf(
                d ->
                        d.getCode()
                                .equals(
                                        io.zerolayer.operators.contracts.DiagnosticCodes
                                                .BELOW_MIN_PROBABILITY));
        ObjectNode result = null;
        DocumentTask decoder = null;
        if (t.status == ResponseStatus.OK) {
            decoder = DocumentTask.forName(byIndex[0].part.decoder);
            result = decoder.combineParts(t.results, byIndex[0].part.sentences);
            io.zerolayer.operators.tasks.PostDecodeNode.combineParts(t.results, result);
            String note = DocumentTask.noteOf(result);
            if (note != null) {
                t.diagnostics.add(
                        new Diagnostic(
                                io.zerolayer.operators.contracts.DiagnosticCodes
                                        .BELOW_MIN_PROBABILITY,
                                "info",
                                0,
                                0,
                                note,
                                null));
            }
        }
        AnalysisResponse.Builder combined =
                AnalysisResponse.newBuilder(t.status == ResponseStatus.OK ? first : t.worst)
                        .setGraphId(t.graphId)
                        .setDiagnostics(List.copyOf(t.diagnostics))
                        .setAttributes(t.attributes)
                        .setCost(new CostTotal(t.kernels, t.kernelNanos, t.flops, t.nanoUsd))
                        .setTimings(
                                new Timings(
                                        first.getTimings().getSubmittedAt(),
                                        Instant.now(),
                                        first.getTimings().getClassifyMicros(),
                                        t.compileMicros,
                                        t.executeMicros));
        if (t.status == ResponseStatus.OK) {
            String format = first.getOutputFormat();
            combined.setFidelity(t.fidelity)
                    .setOutput(
                            "text".equals(format)
                                    ? decoder.text(result)
                                    : DocumentTask.json(result));
        } else {
            combined.setStatus(t.status).setFidelity(null).setOutput(null);
        }
        return new Reply(combined.build(), byIndex[0].route);
    }

    /**
     * The parts by index, checked to be every part of one request; as they came when combining them
     * failed (they may not fit).
     */
    private static Reply[] inOrder(List<Reply> parts, RuntimeException failure) {
        if (parts.isEmpty()) {
            throw new IllegalArgumentException("No parts to combine");
        }
        if (failure != null) {
            return parts.toArray(new Reply[0]);
        }
        Reply[] byIndex = new Reply[parts.get(0).part.count];
        for (Reply r : parts) {
            if (r.part == null
                    || r.part.count != byIndex.length
                    || byIndex[r.part.index] != null
                    || !r.response.getRequestId().equals(parts.get(0).response.getRequestId())) {
                throw new IllegalArgumentException(
                        "Not the parts of one request: " + r.response.getRequestId());
            }
            byIndex[r.part.index] = r;
        }
        if (parts.size() != byIndex.length) {
            throw new IllegalArgumentException(
                    parts.size() + " of " + byIndex.length + " parts to combine");
        }
        return byIndex;
    }

    /** What the parts' responses add up to: the worst status and fidelity, costs, timings. */
    private static final class Totals {
        ResponseStatus status = ResponseStatus.OK;
        AnalysisResponse worst;
        Fidelity fidelity;
        final Set<Diagnostic> diagnostics = new LinkedHashSet<>();
        final Map<String, String> attributes = new TreeMap<>();
        int kernels;
        long kernelNanos;
        Long flops;
        Long nanoUsd;
        long compileMicros;
        long executeMicros;
        String graphId;
        final List<JsonNode> results = new ArrayList<>();

        Totals(AnalysisResponse first) {
            this.worst = first;
        }

        void add(AnalysisResponse r) {
            if (r.getStatus().ordinal() > status.ordinal()) {
                status = r.getStatus(); // OK < REJECTED < FAILED
                worst = r;
            }
            // the schema's fidelities, like its statuses, run from best to worst
            if (r.getFidelity() != null
                    && (fidelity == null || r.getFidelity().ordinal() > fidelity.ordinal())) {
                fidelity = r.getFidelity();
            }
            diagnostics.addAll(r.getDiagnostics());
            if (r.getAttributes() != null) {
                attributes.putAll(r.getAttributes());
            }
            if (graphId == null) {
                graphId = r.getGraphId();
            }
            CostTotal c = r.getCost();
            if (c != null) {
                kernels += c.getKernels();
                kernelNanos += c.getKernelNanos();
                flops = SplitReplies.add(flops, c.getFlops());
                nanoUsd = SplitReplies.add(nanoUsd, c.getNanoUsd());
            }
            if (r.getTimings() != null) {
                compileMicros = Math.max(compileMicros, r.getTimings().getCompileMicros());
                executeMicros = Math.max(executeMicros, r.getTimings().getExecuteMicros());
            }
            if (r.getStatus() == ResponseStatus.OK) {
                results.add(parse(r.getOutput()));
            }
        }
    }

    private static Long add(Long a, Long b) {
        return a == null ? b : b == null ? a : a + b;
    }

    private static JsonNode parse(String output) {
        try {
            return JSON.readTree(output);
        } catch (java.io.IOException e) {
            throw new IllegalStateException("A part's result is not JSON: " + e.getMessage(), e);
        }
    }
}
