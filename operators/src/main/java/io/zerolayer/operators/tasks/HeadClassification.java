package io.zerolayer.operators.tasks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.zerolayer.operators.contracts.TaskContract;
import io.zerolayer.operators.heads.ClassifierHead;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * Classification by a head fit on the task's labelled examples ({@link ClassifierHead}): the
 * document's logits are its sentences' logits ({@link HeadScores}, from the plan's {@code head}
 * node) averaged with sentences weighted by their tokens — the head applied to the token-weighted
 * mean of the sentence vectors, which is how its examples were embedded — and each label's
 * probability is their softmax. Labels are returned best first. Where the task sets {@code
 * min-probability} and no label reaches it, the answer is label {@value
 * TaskContract#UNKNOWN_LABEL}, with the scores as they are and a note saying why. A split
 * document's logits are its parts' weighted by their tokens, which is exact.
 */
final class HeadClassification implements DocumentTask {
    private final double minProbability;

    /**
     * @param minProbability the task's, or NaN for none
     */
    HeadClassification(double minProbability) {
        this.minProbability = minProbability;
    }

    @Override
    public TaskResult decode(TaskInput in, String outputFormat) {
        HeadScores scores = in.head();
        if (scores == null) {
            throw new IllegalStateException("A head classification runs after a head node");
        }
        List<String> labels = scores.head().labels();
        double[] logits = new double[labels.size()];
        double totalTokens = in.chunks().stream().mapToInt(c -> c.tokenIds().length).sum();
        for (int i = 0; i < in.chunks().size(); i++) {
            double weight = in.chunks().get(i).tokenIds().length / totalTokens;
            for (int l = 0; l < logits.length; l++) {
                logits[l] += weight * scores.chunkLogits()[i][l];
            }
        }
        ObjectNode root = scored(labels, logits, (long) totalTokens, minProbability);
        String note = note(root);
        return new TaskResult(
                outputFormat.equals("json") ? DocumentTask.json(root) : text(root),
                2L * in.chunks().size() * labels.size(),
                note);
    }

    /**
     * Labels best first with logit and probability; the top one as "label", or {@code unknown}
     * below {@code minProbability}.
     */
    static ObjectNode scored(List<String> names, double[] logits, long tokens, double min) {
        double[] p = ClassifierHead.probabilities(logits);
        List<Integer> order =
                IntStream.range(0, logits.length)
                        .boxed()
                        .sorted(Comparator.comparingDouble(l -> -logits[l]))
                        .toList();
        ObjectNode root = JSON.createObjectNode();
        int top = order.get(0);
        boolean unknown = !Double.isNaN(min) && p[top] < min;
        root.put("label", unknown ? TaskContract.UNKNOWN_LABEL : names.get(top));
        root.put("tokens", tokens);
        root.put("head", true);
        if (!Double.isNaN(min)) {
            root.put("min-probability", min);
        }
        ArrayNode arr = root.putArray("scores");
        for (int l : order) {
            arr.addObject()
                    .put("label", names.get(l))
                    .put("logit", DocumentTask.round(logits[l]))
                    .put("probability", DocumentTask.round(p[l]));
        }
        return root;
    }

    /** Why a result is {@code unknown}; null when it is not. */
    static String note(JsonNode result) {
        if (!TaskContract.UNKNOWN_LABEL.equals(result.path("label").asText())
                || !result.has("min-probability")) {
            return null;
        }
        JsonNode best = result.path("scores").path(0);
        return String.format(
                Locale.ROOT,
                "No label reaches the task's min-probability %s: the likeliest, '%s', has %.4f",
                result.path("min-probability").asText(),
                best.path("label").asText(),
                best.path("probability").asDouble());
    }

    /** Whether {@code parts} are results of a head, which {@link #combine} combines. */
    static boolean isHeadResult(List<JsonNode> parts) {
        return !parts.isEmpty() && parts.get(0).path("head").asBoolean(false);
    }

    /** The parts' logits weighted by their tokens: the whole document's, exactly. */
    static ObjectNode combine(List<JsonNode> parts) {
        Map<String, Double> weighted = new LinkedHashMap<>();
        long tokens = 0;
        for (JsonNode part : parts) {
            long t = part.path("tokens").asLong();
            tokens += t;
            for (JsonNode s : part.path("scores")) {
                weighted.merge(
                        s.path("label").asText(), t * s.path("logit").asDouble(), Double::sum);
            }
        }
        long total = Math.max(1, tokens);
        List<String> names = new ArrayList<>(weighted.keySet());
        double[] logits = names.stream().mapToDouble(l -> weighted.get(l) / total).toArray();
        JsonNode min = parts.get(0).get("min-probability");
        ObjectNode root = scored(names, logits, tokens, min == null ? Double.NaN : min.asDouble());
        root.put("parts", parts.size());
        return root;
    }

    @Override
    public ObjectNode combineParts(List<JsonNode> parts, int sentences) {
        return combine(parts);
    }

    @Override
    public String text(JsonNode result) {
        StringBuilder sb = new StringBuilder();
        if (TaskContract.UNKNOWN_LABEL.equals(result.path("label").asText())) {
            sb.append(TaskContract.UNKNOWN_LABEL).append(": ");
        }
        int n = 0;
        for (JsonNode s : result.path("scores")) {
            sb.append(n++ == 0 ? "" : ", ")
                    .append(s.path("label").asText())
                    .append(
                            String.format(
                                    Locale.ROOT, " (%.2f)", s.path("probability").asDouble()));
        }
        return sb.toString();
    }
}
