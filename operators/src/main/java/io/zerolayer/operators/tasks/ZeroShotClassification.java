package io.zerolayer.operators.tasks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.zerolayer.gpu.Pooling;
import io.zerolayer.operators.structure.DocumentContent;
import java.util.Comparator;
import java.util.List;
import java.util.stream.IntStream;

/**
 * Zero-shot classification: a label's score is its cosine similarity to each sentence, averaged
 * with sentences weighted by their tokens — how much of the text is about the label. (Taking the
 * best sentence instead lets one short aside win: "…survive five years after termination" made a
 * confidentiality clause read as termination rights.) Probabilities are a softmax over scores at
 * temperature {@value #TEMPERATURE}; labels are returned best first. A split document's scores are
 * its parts' weighted by their tokens ({@code tokens}), which is exact.
 */
final class ZeroShotClassification implements DocumentTask {
    static final double TEMPERATURE = 0.05;

    @Override
    public List<String> queryTexts(DocumentContent content) {
        return content.labels();
    }

    @Override
    public TaskResult decode(TaskInput in, String outputFormat) {
        List<String> names = in.content().labels();
        int labels = names.size();
        double[] score = new double[labels];
        double totalTokens = in.chunks().stream().mapToInt(c -> c.tokenIds().length).sum();
        for (int l = 0; l < labels; l++) {
            for (int i = 0; i < in.chunks().size(); i++) {
                double weight = in.chunks().get(i).tokenIds().length / totalTokens;
                score[l] += weight * Pooling.cosine(in.queryVectors()[l], in.chunkVectors()[i]);
            }
        }
        long flops =
                DocumentTask.similarityFlops(labels, in.chunkVectors().length, in.dimensions());
        ObjectNode root = scored(names, score, (long) totalTokens);
        return new TaskResult(
                outputFormat.equals("json") ? DocumentTask.json(root) : text(root), flops);
    }

    /** Labels best first with similarity and softmax probability; the top one as "label". */
    private static ObjectNode scored(List<String> names, double[] score, long tokens) {
        double max = java.util.Arrays.stream(score).max().orElse(0);
        double[] p = new double[score.length];
        double sum = 0;
        for (int l = 0; l < score.length; l++) {
            p[l] = Math.exp((score[l] - max) / TEMPERATURE);
            sum += p[l];
        }
        List<Integer> order =
                IntStream.range(0, score.length)
                        .boxed()
                        .sorted(Comparator.comparingDouble(l -> -score[l]))
                        .toList();
        ObjectNode root = JSON.createObjectNode();
        root.put("label", names.get(order.get(0)));
        root.put("tokens", tokens);
        ArrayNode arr = root.putArray("scores");
        for (int l : order) {
            arr.addObject()
                    .put("label", names.get(l))
                    .put("similarity", DocumentTask.round(score[l]))
                    .put("probability", DocumentTask.round(p[l] / sum));
        }
        return root;
    }

    @Override
    public ObjectNode combineParts(List<JsonNode> parts, int sentences) {
        if (HeadClassification.isHeadResult(parts)) { // a split request's parts name one decoder
            return HeadClassification.combine(parts);
        }
        java.util.Map<String, Double> weighted = new java.util.LinkedHashMap<>();
        long tokens = 0;
        for (JsonNode part : parts) {
            long t = part.path("tokens").asLong();
            tokens += t;
            for (JsonNode s : part.path("scores")) {
                weighted.merge(
                        s.path("label").asText(), t * s.path("similarity").asDouble(), Double::sum);
            }
        }
        long total = Math.max(1, tokens);
        List<String> names = List.copyOf(weighted.keySet());
        double[] score = names.stream().mapToDouble(l -> weighted.get(l) / total).toArray();
        ObjectNode root = scored(names, score, tokens);
        root.put("parts", parts.size());
        return root;
    }

    @Override
    public String text(JsonNode result) {
        if (result.path("head").asBoolean(false)) {
            return new HeadClassification(Double.NaN).text(result);
        }
        StringBuilder sb = new StringBuilder();
        for (JsonNode s : result.path("scores")) {
            sb.append(sb.isEmpty() ? "" : ", ")
                    .append(s.path("label").asText())
                    .append(String.format(" (%.2f)", s.path("probability").asDouble()));
        }
        return sb.toString();
    }
}
