package io.zerolayer.operators.tasks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * Extractive summary: each sentence's centrality is its summed cosine similarity to every other
 * sentence; the top k (task attribute {@code sentences}, default 3) are returned in document order.
 *
 * <p>A split document's summary is approximate: each part picks its k most central sentences among
 * its own, and the document keeps the k of those with the highest mean similarity to their part.
 * Each section also keeps the part picks that lie in it ({@code sections}).
 */
final class ExtractiveSummary implements DocumentTask {
    static final int DEFAULT_SENTENCES = 3;

    @Override
    public TaskResult decode(TaskInput in, String outputFormat) {
        int n = in.chunks().size();
        int k = Math.min(n, sentences(in));
        double[] centrality;
        long flops;
        if (in.gram() != null) { // the plan put the n x n products on the GPU (cuBLAS)
            centrality = gramCentralities(in.gram().apply(in.chunkVectors()));
            flops = DocumentTask.similarityFlops(n, n, in.dimensions()) / 2;
        } else {
            centrality = centralities(in.chunkVectors());
            flops = DocumentTask.centralityFlops(n, in.dimensions());
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

    @Override
    public ObjectNode combineParts(List<JsonNode> parts, int sentences) {
        int k = sentences > 0 ? sentences : DEFAULT_SENTENCES;
        record Pick(int part, int order, JsonNode sentence) {}
        List<Pick> picks = new ArrayList<>();
        int candidates = 0;
        for (int p = 0; p < parts.size(); p++) {
            candidates += parts.get(p).path("candidates").asInt();
            int order = 0;
            for (JsonNode s : parts.get(p).path("sentences")) {
                picks.add(new Pick(p, order++, s));
            }
        }
        List<Pick> best =
                picks.stream()
                        .sorted(
                                Comparator.comparingDouble(
                                                (Pick x) ->
                                                        -x.sentence().path("centrality").asDouble())
                                        .thenComparingInt(Pick::part)
                                        .thenComparingInt(Pick::order))
                        .limit(k)
                        .sorted(Comparator.comparingInt(Pick::part).thenComparingInt(Pick::order))
                        .toList();
        ObjectNode root = JSON.createObjectNode();
        ArrayNode arr = root.putArray("sentences");
        best.forEach(x -> arr.add(withPart(x.sentence(), x.part())));
        root.put("candidates", candidates);
        root.put("parts", parts.size());
        Map<String, ArrayNode> bySection = new LinkedHashMap<>();
        ObjectNode sections = JSON.createObjectNode();
        for (Pick x : picks) {
            String scope = x.sentence().path("scope").asText("body");
            bySection
                    .computeIfAbsent(scope, name -> sections.putArray(name))
                    .add(withPart(x.sentence(), x.part()));
        }
        root.set("sections", sections);
        return root;
    }

    /** A part's sentence for the document: offsets index into the part's prompt, so they go. */
    static ObjectNode withPart(JsonNode sentence, int part) {
        ObjectNode n = sentence.deepCopy();
        n.remove("start");
        n.remove("end");
        n.put("part", part);
        return n;
    }

    @Override
    public String text(JsonNode result) {
        StringBuilder sb = new StringBuilder();
        for (JsonNode s : result.path("sentences")) {
            sb.append(sb.isEmpty() ? "" : " ").append(s.path("text").asText());
        }
        return sb.toString();
    }

    /** Each sentence's summed similarity to every other, from the n × n Gram matrix. */
    private static double[] gramCentralities(float[][] g) {
        double[] out = new double[g.length];
        for (int i = 0; i < g.length; i++) {
            for (int j = 0; j < g.length; j++) {
                if (j != i) {
                    out[i] += g[i][j];
                }
            }
        }
        return out;
    }

    /**
     * Each sentence's summed similarity to every other, in O(n·d) rather than over the n² pairs:
     * the vectors are unit length (cosine is their dot product), so Σ_{j≠i} v_i·v_j = v_i·S −
     * v_i·v_i with S = Σ_j v_j. A 1 MiB document's 13 840 sentences took about a minute as pairs.
     */
    static double[] centralities(float[][] vectors) {
        double[] out = new double[vectors.length];
        if (vectors.length == 0) {
            return out;
        }
        double[] sum = new double[vectors[0].length];
        for (float[] v : vectors) {
            for (int k = 0; k < sum.length; k++) {
                sum[k] += v[k];
            }
        }
        for (int i = 0; i < vectors.length; i++) {
            float[] v = vectors[i];
            double withAll = 0;
            double self = 0;
            for (int k = 0; k < sum.length; k++) {
                withAll += v[k] * sum[k];
                self += (double) v[k] * v[k];
            }
            out[i] = withAll - self;
        }
        return out;
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
