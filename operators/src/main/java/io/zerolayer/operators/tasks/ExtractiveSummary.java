package io.zerolayer.operators.tasks;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.zerolayer.gpu.SentenceEncoder;
import io.zerolayer.operators.execution.Chunk;
import java.util.Comparator;
import java.util.List;
import java.util.stream.IntStream;

/**
 * Extractive summary: each sentence's centrality is its summed cosine similarity to every other
 * sentence; the top k (task attribute {@code sentences}, default 3) are returned in document order.
 */
final class ExtractiveSummary implements DocumentTask {
    static final int DEFAULT_SENTENCES = 3;

    @Override
    public TaskResult decode(TaskInput in, String outputFormat) {
        int n = in.chunks().size();
        int k = Math.min(n, sentences(in));
        double[] centrality = new double[n];
        if (in.gram() != null) { // the plan put the n x n products on the GPU (cuBLAS)
            float[][] g = in.gram().apply(in.chunkVectors());
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < n; j++) {
                    if (j != i) {
                        centrality[i] += g[i][j];
                    }
                }
            }
        } else {
            for (int i = 0; i < n; i++) {
                for (int j = i + 1; j < n; j++) {
                    double s = SentenceEncoder.cosine(in.chunkVectors()[i], in.chunkVectors()[j]);
                    centrality[i] += s;
                    centrality[j] += s;
                }
            }
        }
        List<Integer> picked =
                IntStream.range(0, n)
                        .boxed()
                        .sorted(
                                Comparator.comparingDouble((Integer i) -> -centrality[i])
                                        .thenComparing(i -> i))
                        .limit(k)
                        .sorted()
                        .toList();
        long flops = DocumentTask.similarityFlops(n, n) / 2;
        if (outputFormat.equals("json")) {
            ObjectNode root = JSON.createObjectNode();
            ArrayNode arr = root.putArray("sentences");
            for (int i : picked) {
                Chunk c = in.chunks().get(i);
                arr.addObject()
                        .put("text", c.text().strip())
                        .put("scope", c.scope())
                        .put("start", c.start())
                        .put("end", c.end())
                        .put("centrality", DocumentTask.round(n > 1 ? centrality[i] / (n - 1) : 1));
            }
            root.put("candidates", n);
            return new TaskResult(DocumentTask.json(root), flops);
        }
        StringBuilder sb = new StringBuilder();
        for (int i : picked) {
            sb.append(sb.isEmpty() ? "" : " ").append(in.chunks().get(i).text().strip());
        }
        return new TaskResult(sb.toString(), flops);
    }

    private static int sentences(TaskInput in) {
        String value = in.content().taskAttributes().get("sentences");
        if (value == null) {
            return DEFAULT_SENTENCES;
        }
        try {
            return Math.max(1, Integer.parseInt(value.strip()));
        } catch (NumberFormatException e) {
            return DEFAULT_SENTENCES;
        }
    }
}
