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
        if (parts.isEmpty()) {
            throw new IllegalArgumentException("No parts to combine");
        }
        Reply[] byIndex = new Reply[parts.get(0).part.count];
        for (Reply r : parts) {
            if (failure != null) {
                byIndex = parts.toArray(new Reply[0]); // as they came: they may not fit
                break;
            }
            if (r.part == null
                    || r.part.count != byIndex.length
                    || byIndex[r.part.index] != null
                    || !r.response.getRequestId().equals(parts.get(0).response.getRequestId())) {
                throw new IllegalArgumentException(
                        "Not the parts of one request: " + r.response.getRequestId());
            }
            byIndex[r.part.index] = r;
        }
        if (failure == null && parts.size() != byIndex.length) {
            throw new IllegalArgumentException(
                    parts.size() + " of " + byIndex.length + " parts to combine");
        }
        AnalysisResponse first = byIndex[0].response;
        ResponseStatus status = ResponseStatus.OK;
        AnalysisResponse worst = first;
        Fidelity fidelity = null;
        Set<Diagnostic> diagnostics = new LinkedHashSet<>();
        Map<String, String> attributes = new TreeMap<>();
        int kernels = 0;
        long kernelNanos = 0;
        Long flops = null;
        Long nanoUsd = null;
        long compileMicros = 0;
        long executeMicros = 0;
        String graphId = null;
        List<JsonNode> results = new ArrayList<>();
        for (Reply part : byIndex) {
            AnalysisResponse r = part.response;
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
                flops = add(flops, c.getFlops());
                nanoUsd = add(nanoUsd, c.getNanoUsd());
            }
            if (r.getTimings() != null) {
                compileMicros = Math.max(compileMicros, r.getTimings().getCompileMicros());
                executeMicros = Math.max(executeMicros, r.getTimings().getExecuteMicros());
            }
            if (r.getStatus() == ResponseStatus.OK) {
                results.add(parse(r.getOutput()));
            }
        }
        if (failure != null) {
            status = ResponseStatus.FAILED;
            worst = first;
            diagnostics.add(
                    new Diagnostic(
                            io.zerolayer.operators.contracts.DiagnosticCodes.EXECUTION_FAILED,
                            "error",
                            0,
                            0,
                            "Combining the results of the request's parts failed: "
                                    + failure.getMessage(),
                            null));
        }
        AnalysisResponse.Builder combined =
                AnalysisResponse.newBuilder(status == ResponseStatus.OK ? first : worst)
                        .setGraphId(graphId)
                        .setDiagnostics(List.copyOf(diagnostics))
                        .setAttributes(attributes)
                        .setCost(new CostTotal(kernels, kernelNanos, flops, nanoUsd))
                        .setTimings(
                                new Timings(
                                        first.getTimings().getSubmittedAt(),
                                        Instant.now(),
                                        first.getTimings().getClassifyMicros(),
                                        compileMicros,
                                        executeMicros));
        if (status == ResponseStatus.OK) {
            DocumentTask decoder = DocumentTask.forName(byIndex[0].part.decoder);
            ObjectNode result = decoder.combineParts(results, byIndex[0].part.sentences);
            io.zerolayer.operators.tasks.PostDecodeNode.combineParts(results, result);
            String format = first.getOutputFormat();
            combined.setFidelity(fidelity)
                    .setOutput(
                            "text".equals(format)
                                    ? decoder.text(result)
                                    : DocumentTask.json(result));
        } else {
            combined.setStatus(status).setFidelity(null).setOutput(null);
        }
        return new Reply(combined.build(), byIndex[0].route);
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
