package io.zerolayer.schemas.serde;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.AnalysisResponse;
import io.zerolayer.schemas.CostTotal;
import io.zerolayer.schemas.Diagnostic;
import io.zerolayer.schemas.Fidelity;
import io.zerolayer.schemas.ResponseStatus;
import io.zerolayer.schemas.Timings;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Plain JSON form of requests and responses, for clients without Avro (kcat, the console producer).
 * Field names are the Avro ones; instants are epoch milliseconds or ISO-8601 strings.
 *
 * <pre>{@code {"requestId":"r1","tenantId":"acme","prompt":"<task:summarize> ..."}}</pre>
 */
public final class JsonCodec {
    /**
     * Longest JSON string accepted: far above any prompt a Kafka record can carry, so a prompt over
     * the contracts' max-prompt-bytes reaches the type check and is answered ZL030 instead of being
     * refused by the parser (Jackson's own default is 20 MB).
     */
    public static final int MAX_STRING_CHARS = 256 << 20;

    private static final ObjectMapper MAPPER =
            new ObjectMapper(
                    com.fasterxml.jackson.core.JsonFactory.builder()
                            .streamReadConstraints(
                                    com.fasterxml.jackson.core.StreamReadConstraints.builder()
                                            .maxStringLength(MAX_STRING_CHARS)
                                            .build())
                            .build());

    private JsonCodec() {}

    /** Parses a JSON request; {@code submittedAt} defaults to {@code now} when absent. */
    public static AnalysisRequest readRequest(byte[] bytes, Instant now) {
        JsonNode root;
        try {
            root = MAPPER.readTree(bytes);
        } catch (IOException e) {
            throw new UndecodableRecordException("Not valid JSON: " + e.getMessage(), e);
        }
        if (root == null || !root.isObject()) {
            throw new UndecodableRecordException(
                    "A JSON request must be an object with requestId, tenantId and prompt");
        }
        Map<String, String> attributes = new LinkedHashMap<>();
        JsonNode attrs = root.path("attributes");
        if (attrs.isObject()) {
            attrs.fields().forEachRemaining(e -> attributes.put(e.getKey(), e.getValue().asText()));
        }
        return AnalysisRequest.newBuilder()
                .setRequestId(requiredText(root, "requestId"))
                .setTenantId(requiredText(root, "tenantId"))
                .setPrompt(requiredText(root, "prompt"))
                .setSubmittedAt(instant(root.get("submittedAt"), "submittedAt", now))
                .setDeadline(
                        root.hasNonNull("deadline")
                                ? instant(root.get("deadline"), "deadline", null)
                                : null)
                .setAttributes(attributes)
                .build();
    }

    public static byte[] writeRequest(AnalysisRequest request) {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("requestId", request.getRequestId());
        root.put("tenantId", request.getTenantId());
        root.put("prompt", request.getPrompt());
        root.put("submittedAt", request.getSubmittedAt().toEpochMilli());
        if (request.getDeadline() != null) {
            root.put("deadline", request.getDeadline().toEpochMilli());
        }
        ObjectNode attrs = root.putObject("attributes");
        request.getAttributes().forEach(attrs::put);
        return bytes(root);
    }

    public static byte[] writeResponse(AnalysisResponse response) {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("requestId", response.getRequestId());
        root.put("tenantId", response.getTenantId());
        root.put("graphId", response.getGraphId());
        root.put("status", response.getStatus().name());
        root.put("fidelity", response.getFidelity() == null ? null : response.getFidelity().name());
        root.put("task", response.getTask());
        root.put("outputFormat", response.getOutputFormat());
        if ("json".equals(response.getOutputFormat()) && response.getOutput() != null) {
            try {
                root.set("result", MAPPER.readTree(response.getOutput()));
            } catch (JsonProcessingException e) {
                root.put("result", response.getOutput());
            }
        } else {
            root.put("result", response.getOutput());
        }
        ArrayNode diags = root.putArray("diagnostics");
        for (Diagnostic d : response.getDiagnostics()) {
            ObjectNode n = diags.addObject();
            n.put("code", d.getCode());
            n.put("severity", d.getSeverity());
            n.put("line", d.getLine());
            n.put("column", d.getColumn());
            n.put("message", d.getMessage());
            n.put("hint", d.getHint());
        }
        Timings t = response.getTimings();
        ObjectNode timings = root.putObject("timings");
        timings.put("submittedAt", t.getSubmittedAt().toEpochMilli());
        timings.put("completedAt", t.getCompletedAt().toEpochMilli());
        timings.put("classifyMicros", t.getClassifyMicros());
        timings.put("compileMicros", t.getCompileMicros());
        timings.put("executeMicros", t.getExecuteMicros());
        CostTotal c = response.getCost();
        ObjectNode cost = root.putObject("cost");
        cost.put("kernels", c.getKernels());
        cost.put("kernelNanos", c.getKernelNanos());
        cost.put("flops", c.getFlops());
        cost.put("nanoUsd", c.getNanoUsd());
        ObjectNode attrs = root.putObject("attributes");
        response.getAttributes().forEach(attrs::put);
        return bytes(root);
    }

    public static AnalysisResponse readResponse(byte[] bytes) {
        try {
            JsonNode root = MAPPER.readTree(bytes);
            List<Diagnostic> diagnostics = new ArrayList<>();
            for (JsonNode d : root.path("diagnostics")) {
                diagnostics.add(
                        new Diagnostic(
                                d.path("code").asText(),
                                d.path("severity").asText(),
                                d.path("line").asInt(),
                                d.path("column").asInt(),
                                d.path("message").asText(),
                                d.hasNonNull("hint") ? d.get("hint").asText() : null));
            }
            JsonNode t = root.path("timings");
            JsonNode c = root.path("cost");
            JsonNode result = root.get("result");
            Map<String, String> attributes = new LinkedHashMap<>();
            root.path("attributes")
                    .fields()
                    .forEachRemaining(e -> attributes.put(e.getKey(), e.getValue().asText()));
            return AnalysisResponse.newBuilder()
                    .setRequestId(root.path("requestId").asText())
                    .setTenantId(root.path("tenantId").asText())
                    .setGraphId(textOrNull(root, "graphId"))
                    .setStatus(ResponseStatus.valueOf(root.path("status").asText()))
                    .setFidelity(
                            root.hasNonNull("fidelity")
                                    ? Fidelity.valueOf(root.get("fidelity").asText())
                                    : null)
                    .setTask(textOrNull(root, "task"))
                    .setOutputFormat(textOrNull(root, "outputFormat"))
                    .setOutput(
                            result == null || result.isNull()
                                    ? null
                                    : result.isTextual()
                                            ? result.asText()
                                            : MAPPER.writeValueAsString(result))
                    .setDiagnostics(diagnostics)
                    .setTimings(
                            new Timings(
                                    Instant.ofEpochMilli(t.path("submittedAt").asLong()),
                                    Instant.ofEpochMilli(t.path("completedAt").asLong()),
                                    t.path("classifyMicros").asLong(),
                                    t.path("compileMicros").asLong(),
                                    t.path("executeMicros").asLong()))
                    .setCost(
                            new CostTotal(
                                    c.path("kernels").asInt(),
                                    c.path("kernelNanos").asLong(),
                                    c.hasNonNull("flops") ? c.get("flops").asLong() : null,
                                    c.hasNonNull("nanoUsd") ? c.get("nanoUsd").asLong() : null))
                    .setAttributes(attributes)
                    .build();
        } catch (IOException | IllegalArgumentException e) {
            throw new UndecodableRecordException(
                    "Not a JSON AnalysisResponse: " + e.getMessage(), e);
        }
    }

    private static String textOrNull(JsonNode root, String field) {
        return root.hasNonNull(field) ? root.get(field).asText() : null;
    }

    private static String requiredText(JsonNode root, String field) {
        JsonNode node = root.get(field);
        if (node == null || node.isNull() || !node.isTextual()) {
            throw new UndecodableRecordException("JSON request lacks string field '" + field + "'");
        }
        return node.asText();
    }

    private static Instant instant(JsonNode node, String field, Instant fallback) {
        if (node == null || node.isNull()) {
            return fallback;
        }
        if (node.isNumber()) {
            return Instant.ofEpochMilli(node.asLong());
        }
        try {
            return Instant.parse(node.asText());
        } catch (DateTimeParseException e) {
            throw new UndecodableRecordException(
                    "JSON field '"
                            + field
                            + "' must be epoch milliseconds or ISO-8601, got '"
                            + excerpt(node.asText())
                            + "'",
                    e);
        }
    }

    private static String excerpt(String value) {
        return value.length() <= 80 ? value : value.substring(0, 80) + "…";
    }

    private static byte[] bytes(JsonNode node) {
        try {
            return MAPPER.writeValueAsString(node).getBytes(StandardCharsets.UTF_8);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
