package io.zerolayer.operators.tasks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.zerolayer.operators.structure.DocumentContent;
import java.util.List;

/** The decode step of a graph: turns encoder output into the answer the task promises. */
public interface DocumentTask {
    ObjectMapper JSON = new ObjectMapper();

    TaskResult decode(TaskInput input, String outputFormat);

    /** Texts encoded next to the document in the same batch (a question, label hypotheses). */
    default List<String> queryTexts(DocumentContent content) {
        return List.of();
    }

    /**
     * Whether the query texts search the document's passages (a question, a field to find), so they
     * carry the encoder's query prefix (BGE's instruction); labels compared with the whole document
     * do not.
     */
    default boolean queriesSearchPassages() {
        return false;
    }

    /**
     * The result of a document split into parts ({@code DocumentParts}): the parts' JSON results,
     * in reading order, combined into one for the whole document. Each decoder combines its own
     * kind of result; where the whole-document answer cannot be recomputed from the parts, the
     * class javadoc of the decoder says what the combination approximates.
     *
     * @param sentences the summary length asked for (summaries only)
     */
    ObjectNode combineParts(List<com.fasterxml.jackson.databind.JsonNode> parts, int sentences);

    /** The text form (output format {@code text}) of a JSON result of this decoder. */
    String text(com.fasterxml.jackson.databind.JsonNode result);

    static DocumentTask forName(String task) {
        return switch (task) {
            case "summarize" -> new ExtractiveSummary();
            case "classify" -> new ZeroShotClassification();
            case "answer" -> new PassageAnswer();
            case "embed" -> new DocumentEmbedding();
            case "extract" -> new FieldExtraction();
            default -> throw new IllegalArgumentException("No decoder for task '" + task + "'");
        };
    }

    /**
     * Classification by the plan's head, fit on the task's labelled examples.
     *
     * @param minProbability below it the answer is {@code unknown}; NaN for none
     */
    static DocumentTask headClassification(double minProbability) {
        return new HeadClassification(minProbability);
    }

    /**
     * Why a split classification's combined result is {@code unknown}, or null: what the reply's
     * diagnostics say of it, as a whole request's decode would.
     */
    static String noteOf(JsonNode combined) {
        return HeadClassification.note(combined);
    }

    /**
     * FLOPs of comparing {@code a} vectors with {@code b} vectors of {@code dims} by dot product.
     */
    static long similarityFlops(long a, long b, int dims) {
        return 2L * a * b * dims;
    }

    /**
     * FLOPs of a summary's sentence centralities on the CPU ({@code ExtractiveSummary}): the sum of
     * the {@code n} vectors, then two dot products each (with the sum and with itself).
     */
    static long centralityFlops(long n, int dims) {
        return n * dims + similarityFlops(n, 2, dims);
    }

    static String json(ObjectNode node) {
        try {
            return JSON.writeValueAsString(node);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    static double round(double v) {
        return Math.round(v * 10_000d) / 10_000d;
    }
}
