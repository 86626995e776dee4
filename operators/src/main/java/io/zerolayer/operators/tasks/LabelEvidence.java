package io.zerolayer.operators.tasks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.zerolayer.gpu.Pooling;
import java.util.List;
import java.util.Map;

/**
 * Optional extra of a classification: for each label, the sentence of the document that supports it
 * best (highest cosine to the label; under a head, highest logit for it), added to the JSON output
 * as {@code evidence}. Text output is left as it is.
 */
final class LabelEvidence implements PostDecodeNode {
    @Override
    public Result apply(TaskInput in, String output, String outputFormat, Context context) {
        if (outputFormat.equals("json") && in.head() != null) {
            return byHead(in, output);
        }
        if (!outputFormat.equals("json") || in.queryVectors().length == 0) {
            return new Result(output, Map.of(), 0);
        }
        ObjectNode root;
        try {
            root = (ObjectNode) DocumentTask.JSON.readTree(output);
        } catch (java.io.IOException e) {
            throw new IllegalStateException("Classification output is not JSON: " + e, e);
        }
        List<String> labels = in.content().labels();
        ArrayNode evidence = root.putArray("evidence");
        for (JsonNode scored : root.withArray("scores")) {
            int l = labels.indexOf(scored.get("label").asText());
            if (l < 0) {
                continue;
            }
            int best = 0;
            double bestScore = -2;
            for (int i = 0; i < in.chunkVectors().length; i++) {
                double s = Pooling.cosine(in.queryVectors()[l], in.chunkVectors()[i]);
                if (s > bestScore) {
                    bestScore = s;
                    best = i;
                }
            }
            Chunk c = in.chunks().get(best);
            evidence.addObject()
                    .put("label", labels.get(l))
                    .put("text", c.text().strip())
                    .put("start", c.start())
                    .put("end", c.end())
                    .put("similarity", DocumentTask.round(bestScore));
        }
        return new Result(
                DocumentTask.json(root),
                Map.of(),
                DocumentTask.similarityFlops(
                        labels.size(), in.chunkVectors().length, in.dimensions()));
    }

    /** For each label, the sentence of the highest logit for it: the one the head reads as it. */
    private static Result byHead(TaskInput in, String output) {
        ObjectNode root = read(output);
        HeadScores scores = in.head();
        List<String> labels = scores.head().labels();
        ArrayNode evidence = root.putArray("evidence");
        for (JsonNode scored : root.withArray("scores")) {
            int l = labels.indexOf(scored.get("label").asText());
            int best = 0;
            for (int i = 1; i < scores.chunkLogits().length; i++) {
                if (scores.chunkLogits()[i][l] > scores.chunkLogits()[best][l]) {
                    best = i;
                }
            }
            Chunk c = in.chunks().get(best);
            evidence.addObject()
                    .put("label", labels.get(l))
                    .put("text", c.text().strip())
                    .put("start", c.start())
                    .put("end", c.end())
                    .put("logit", DocumentTask.round(scores.chunkLogits()[best][l]));
        }
        return new Result(
                DocumentTask.json(root), Map.of(), (long) labels.size() * in.chunks().size());
    }

    private static ObjectNode read(String output) {
        try {
            return (ObjectNode) DocumentTask.JSON.readTree(output);
        } catch (java.io.IOException e) {
            throw new IllegalStateException("Classification output is not JSON: " + e, e);
        }
    }

    /** A piece of evidence's score: its logit under a head, else its similarity. */
    private static double score(JsonNode e) {
        return e.has("logit") ? e.path("logit").asDouble() : e.path("similarity").asDouble();
    }

    /**
     * The evidence of a split classification: for each label of {@code combined}'s scores, in their
     * order, the sentence of highest similarity among its parts' evidence, which is the whole
     * document's. Nothing when no part has evidence (a text result, or the node pruned).
     */
    static void combineParts(List<JsonNode> parts, ObjectNode combined) {
        Map<String, JsonNode> best = new java.util.HashMap<>();
        boolean any = false;
        for (JsonNode part : parts) {
            for (JsonNode e : part.path("evidence")) {
                any = true;
                best.merge(e.path("label").asText(), e, (a, b) -> score(b) > score(a) ? b : a);
            }
        }
        if (!any) {
            return;
        }
        ArrayNode evidence = combined.putArray("evidence");
        for (JsonNode scored : combined.path("scores")) {
            JsonNode e = best.get(scored.path("label").asText());
            if (e != null) {
                evidence.add(e);
            }
        }
    }
}
