package io.zerolayer.operators.tasks;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.zerolayer.gpu.SentenceEncoder;
import java.util.Comparator;
import java.util.List;
import java.util.stream.IntStream;

/**
 * Zero-shot classification: each label's score is its best cosine similarity to any chunk of the
 * document (so one relevant paragraph in a long document counts); probabilities are a softmax over
 * scores at temperature {@value #TEMPERATURE}. Labels are returned best first.
 */
final class ZeroShotClassification implements DocumentTask {
    static final double TEMPERATURE = 0.05;

    @Override
    public TaskResult decode(TaskInput in, String outputFormat) {
        int labels = in.queries().size();
        double[] score = new double[labels];
        for (int l = 0; l < labels; l++) {
            score[l] = Double.NEGATIVE_INFINITY;
            for (float[] chunk : in.chunkVectors()) {
                score[l] = Math.max(score[l], SentenceEncoder.cosine(in.queryVectors()[l], chunk));
            }
        }
        double max = IntStream.range(0, labels).mapToDouble(l -> score[l]).max().orElse(0);
        double[] p = new double[labels];
        double sum = 0;
        for (int l = 0; l < labels; l++) {
            p[l] = Math.exp((score[l] - max) / TEMPERATURE);
            sum += p[l];
        }
        List<Integer> order = IntStream.range(0, labels).boxed().sorted(Comparator.comparingDouble(l -> -score[l])).toList();
        long flops = DocumentTask.similarityFlops(labels, in.chunkVectors().length);
        if (outputFormat.equals("json")) {
            ObjectNode root = JSON.createObjectNode();
            root.put("label", in.queries().get(order.get(0)));
            ArrayNode arr = root.putArray("scores");
            for (int l : order) {
                arr.addObject().put("label", in.queries().get(l)).put("similarity", DocumentTask.round(score[l]))
                        .put("probability", DocumentTask.round(p[l] / sum));
            }
            return new TaskResult(DocumentTask.json(root), flops);
        }
        StringBuilder sb = new StringBuilder();
        for (int l : order) {
            sb.append(sb.isEmpty() ? "" : ", ").append(in.queries().get(l)).append(String.format(" (%.2f)", p[l] / sum));
        }
        return new TaskResult(sb.toString(), flops);
    }
}
