package io.zerolayer.analyze;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.zerolayer.operators.contracts.TaskContract;
import io.zerolayer.operators.contracts.TaskContracts;
import io.zerolayer.operators.documents.DocumentAttributes;
import io.zerolayer.operators.replies.AnalysisEvent;
import io.zerolayer.operators.tasks.DocumentTask;
import io.zerolayer.schemas.AnalysisResponse;
import io.zerolayer.schemas.Diagnostic;
import io.zerolayer.schemas.Fidelity;
import io.zerolayer.schemas.ResponseStatus;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns responses into result rows, one per document (or JSON line): a document that ran as one
 * request gets its response's result as it is; a split document's row waits for all its parts and
 * combines their results with the task decoder's {@link DocumentTask#combineParts}.
 */
final class DocumentRows {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final TaskContracts contracts;
    private final String outputFormat;
    private final int sentences;
    private final Map<String, AnalysisResponse[]> waiting = new HashMap<>();

    /**
     * @param outputFormat the format rows of split documents are written in
     * @param sentences the summary length asked for (0: the decoder's default)
     */
    DocumentRows(TaskContracts contracts, String outputFormat, int sentences) {
        this.contracts = contracts;
        this.outputFormat = outputFormat;
        this.sentences = sentences;
    }

    /** Documents some of whose parts are still out. */
    int pending() {
        return waiting.size();
    }

    /** The row of the response's document once all its parts are in, else null. */
    ObjectNode add(AnalysisResponse r) {
        Map<String, String> a = r.getAttributes();
        int parts = Integer.parseInt(a.getOrDefault(DocumentAttributes.PARTS, "1"));
        if (parts <= 1) {
            return row(List.of(r));
        }
        String key =
                DocumentAttributes.unitKey(
                        a.get(DocumentAttributes.PATH),
                        a.get(DocumentAttributes.SHA256),
                        Integer.parseInt(a.getOrDefault(DocumentAttributes.LINE, "0")));
        AnalysisResponse[] got = waiting.computeIfAbsent(key, k -> new AnalysisResponse[parts]);
        got[Integer.parseInt(a.get(DocumentAttributes.PART))] = r;
        for (AnalysisResponse p : got) {
            if (p == null) {
                return null;
            }
        }
        waiting.remove(key);
        return row(List.of(got));
    }

    private ObjectNode row(List<AnalysisResponse> parts) {
        AnalysisResponse first = parts.get(0);
        Map<String, String> a = first.getAttributes();
        ObjectNode row = JSON.createObjectNode();
        row.put("path", a.get(DocumentAttributes.PATH));
        if (a.containsKey(DocumentAttributes.LINE)) {
            row.put("line", Integer.parseInt(a.get(DocumentAttributes.LINE)));
        }
        row.put("sha256", a.get(DocumentAttributes.SHA256));
        row.put("format", a.get(DocumentAttributes.FORMAT));
        if (a.containsKey(DocumentAttributes.TITLE)) {
            row.put("title", a.get(DocumentAttributes.TITLE));
        }
        String requestId = first.getRequestId();
        row.put(
                "requestId",
                parts.size() > 1
                        ? requestId.substring(0, requestId.lastIndexOf("/part-"))
                        : requestId);
        ResponseStatus status = ResponseStatus.OK;
        Fidelity fidelity = Fidelity.FULL;
        Set<String> graphIds = new LinkedHashSet<>();
        ArrayNode diagnostics = JSON.createArrayNode();
        long nanoUsd = 0;
        long kernels = 0;
        long flops = 0;
        List<JsonNode> results = new ArrayList<>();
        for (int p = 0; p < parts.size(); p++) {
            AnalysisResponse r = parts.get(p);
            if (r.getStatus().ordinal() > status.ordinal()) {
                status = r.getStatus(); // OK < REJECTED < FAILED
            }
            if (r.getFidelity() != null && worse(r.getFidelity(), fidelity)) {
                fidelity = r.getFidelity();
            }
            if (r.getGraphId() != null) {
                graphIds.add(r.getGraphId());
            }
            for (Diagnostic d : r.getDiagnostics()) {
                ObjectNode n = diagnostics.addObject();
                if (parts.size() > 1) {
                    n.put("part", p);
                }
                n.put("code", d.getCode())
                        .put("severity", d.getSeverity())
                        .put("line", d.getLine())
                        .put("column", d.getColumn())
                        .put("message", d.getMessage());
                if (d.getHint() != null) {
                    n.put("hint", d.getHint());
                }
            }
            if (r.getCost() != null) {
                nanoUsd += r.getCost().getNanoUsd() == null ? 0 : r.getCost().getNanoUsd();
                kernels += r.getCost().getKernels();
                flops += r.getCost().getFlops() == null ? 0 : r.getCost().getFlops();
            }
            if (r.getStatus() == ResponseStatus.OK) {
                results.add(parse(r));
            }
        }
        row.put("status", status.name());
        if (status == ResponseStatus.OK) {
            row.put("fidelity", fidelity.name());
        }
        row.put("task", first.getTask());
        if (graphIds.size() == 1) {
            row.put("graphId", graphIds.iterator().next());
        } else if (!graphIds.isEmpty()) {
            graphIds.forEach(row.putArray("graphIds")::add);
        }
        row.put("parts", parts.size());
        row.put("chars", Long.parseLong(a.getOrDefault(DocumentAttributes.CHARS, "0")));
        if (parts.size() == 1) {
            row.set("result", results.isEmpty() ? null : results.get(0));
        } else if (!results.isEmpty() && results.size() == parts.size()) {
            row.set("result", combine(parts.get(0), results));
        }
        row.set("diagnostics", diagnostics);
        row.putObject("cost").put("nanoUsd", nanoUsd).put("kernels", kernels).put("flops", flops);
        return row;
    }

    private JsonNode combine(AnalysisResponse first, List<JsonNode> results) {
        TaskContract contract = contracts.task(first.getTask());
        DocumentTask decoder = DocumentTask.forName(contract.decoder());
        ObjectNode combined = decoder.combineParts(results, sentences);
        return outputFormat.equals("json")
                ? combined
                : JSON.getNodeFactory().textNode(decoder.text(combined));
    }

    private static JsonNode parse(AnalysisResponse r) {
        if ("json".equals(r.getOutputFormat()) && r.getOutput() != null) {
            try {
                return JSON.readTree(r.getOutput());
            } catch (java.io.IOException e) {
                // fall through: keep it as text
            }
        }
        return JSON.getNodeFactory().textNode(r.getOutput());
    }

    private static boolean worse(Fidelity a, Fidelity b) {
        return rank(a) > rank(b);
    }

    private static int rank(Fidelity f) {
        return switch (f) {
            case FULL -> 0;
            case REDUCED -> 1;
            case SAFE_MODE -> 2;
        };
    }

    /** The row of an input that never became a request. */
    static ObjectNode errorRow(AnalysisEvent e) {
        ObjectNode row = JSON.createObjectNode();
        row.put("path", e.path);
        if (e.line > 0) {
            row.put("line", e.line);
        }
        row.put("sha256", e.sha256);
        row.put("format", e.format);
        row.put("status", "ERROR");
        row.put("error", e.error);
        return row;
    }
}
