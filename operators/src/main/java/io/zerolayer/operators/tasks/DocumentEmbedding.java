package io.zerolayer.operators.tasks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The document's embedding: the L2-normalised mean of its chunk vectors, pooled the same way per
 * section ({@code scopes}) when the document has sections. Each pooled vector carries its chunk
 * count and the norm of the mean before normalising, so the vectors of a split document's parts
 * combine into exactly the mean over all its chunks.
 */
final class DocumentEmbedding implements DocumentTask {
    @Override
    public TaskResult decode(TaskInput in, String outputFormat) {
        int dims = in.dimensions();
        Map<String, double[]> scopeSums = new LinkedHashMap<>();
        Map<String, Integer> scopeChunks = new LinkedHashMap<>();
        double[] sum = new double[dims];
        for (int i = 0; i < in.chunkVectors().length; i++) {
            float[] v = in.chunkVectors()[i];
            Chunk c = in.chunks().get(i);
            double[] scope = scopeSums.computeIfAbsent(c.scope(), k -> new double[dims]);
            scopeChunks.merge(c.scope(), 1, Integer::sum);
            for (int k = 0; k < dims; k++) {
                sum[k] += v[k];
                scope[k] += v[k];
            }
        }
        ObjectNode root = JSON.createObjectNode();
        root.put("model", in.model());
        float[] mean = pooled(root, sum, in.chunkVectors().length);
        if (scopeSums.size() > 1 || !scopeSums.containsKey("body")) {
            ArrayNode scopes = root.putArray("scopes");
            scopeSums.forEach(
                    (scope, s) -> {
                        ObjectNode n = scopes.addObject().put("scope", scope);
                        pooled(n, s, scopeChunks.get(scope));
                    });
        }
        long flops = 4L * in.chunkVectors().length * dims + 3L * dims * (1 + scopeSums.size());
        if (outputFormat.equals("json")) {
            return new TaskResult(DocumentTask.json(root), flops);
        }
        return new TaskResult(csv(mean), flops);
    }

    /** Writes dimensions, chunks, norm and the unit vector of {@code sum / chunks} into node. */
    private static float[] pooled(ObjectNode node, double[] sum, int chunks) {
        double norm = 0;
        for (double x : sum) {
            norm += x * x;
        }
        norm = Math.sqrt(norm);
        double inv = 1 / Math.max(norm, 1e-12);
        float[] unit = new float[sum.length];
        node.put("dimensions", sum.length).put("chunks", chunks).put("norm", norm / chunks);
        ArrayNode arr = node.putArray("vector");
        for (int k = 0; k < sum.length; k++) {
            unit[k] = (float) (sum[k] * inv);
            arr.add(unit[k]);
        }
        return unit;
    }

    private static String csv(float[] v) {
        StringBuilder text = new StringBuilder();
        for (int k = 0; k < v.length; k++) {
            text.append(k == 0 ? "" : ",").append(v[k]);
        }
        return text.toString();
    }

    /** Exact: each part's sum of chunk vectors is its unit vector × norm × chunks. */
    @Override
    public ObjectNode combineParts(List<JsonNode> parts, int sentences) {
        int dims = parts.get(0).path("dimensions").asInt();
        double[] sum = new double[dims];
        int chunks = 0;
        Map<String, double[]> scopeSums = new LinkedHashMap<>();
        Map<String, Integer> scopeChunks = new LinkedHashMap<>();
        for (JsonNode part : parts) {
            chunks += part.path("chunks").asInt();
            addScaled(sum, part);
            JsonNode scopes = part.path("scopes");
            if (scopes.isArray()) {
                for (JsonNode s : scopes) {
                    String name = s.path("scope").asText();
                    addScaled(scopeSums.computeIfAbsent(name, k -> new double[dims]), s);
                    scopeChunks.merge(name, s.path("chunks").asInt(), Integer::sum);
                }
            } else {
                addScaled(scopeSums.computeIfAbsent("body", k -> new double[dims]), part);
                scopeChunks.merge("body", part.path("chunks").asInt(), Integer::sum);
            }
        }
        ObjectNode root = JSON.createObjectNode();
        root.put("model", parts.get(0).path("model").asText());
        pooled(root, sum, chunks);
        ArrayNode scopes = root.putArray("scopes");
        scopeSums.forEach(
                (scope, s) ->
                        pooled(scopes.addObject().put("scope", scope), s, scopeChunks.get(scope)));
        root.put("parts", parts.size());
        return root;
    }

    private static void addScaled(double[] sum, JsonNode pooled) {
        double scale = pooled.path("norm").asDouble() * pooled.path("chunks").asInt();
        JsonNode v = pooled.path("vector");
        for (int k = 0; k < sum.length; k++) {
            sum[k] += v.path(k).asDouble() * scale;
        }
    }

    @Override
    public String text(JsonNode result) {
        JsonNode v = result.path("vector");
        float[] f = new float[v.size()];
        for (int k = 0; k < f.length; k++) {
            f[k] = (float) v.path(k).asDouble();
        }
        return csv(f);
    }
}
