package io.zerolayer.operators.tasks;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.zerolayer.gpu.EncoderModel;

/** The document's embedding: the L2-normalised mean of its chunk vectors. */
final class DocumentEmbedding implements DocumentTask {
    @Override
    public TaskResult decode(TaskInput in, String outputFormat) {
        float[] mean = new float[EncoderModel.HIDDEN_SIZE];
        for (float[] v : in.chunkVectors()) {
            for (int k = 0; k < mean.length; k++) {
                mean[k] += v[k];
            }
        }
        double norm = 0;
        for (float x : mean) {
            norm += x * x;
        }
        float inv = (float) (1 / Math.max(Math.sqrt(norm), 1e-12));
        StringBuilder text = new StringBuilder();
        ObjectNode root = JSON.createObjectNode();
        root.put("model", in.model())
                .put("dimensions", mean.length)
                .put("chunks", in.chunkVectors().length);
        ArrayNode arr = root.putArray("vector");
        for (int k = 0; k < mean.length; k++) {
            mean[k] *= inv;
            arr.add(mean[k]);
            text.append(k == 0 ? "" : ",").append(mean[k]);
        }
        long flops = 2L * in.chunkVectors().length * mean.length + 3L * mean.length;
        return new TaskResult(
                outputFormat.equals("json") ? DocumentTask.json(root) : text.toString(), flops);
    }
}
