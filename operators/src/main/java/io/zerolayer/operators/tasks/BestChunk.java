package io.zerolayer.operators.tasks;

import io.zerolayer.gpu.Pooling;

/** The chunk most similar to a query vector, and its cosine similarity. */
record BestChunk(int index, double score) {
    static BestChunk of(float[] query, float[][] chunks) {
        int best = 0;
        double bestScore = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < chunks.length; i++) {
            double s = Pooling.cosine(query, chunks[i]);
            if (s > bestScore) {
                bestScore = s;
                best = i;
            }
        }
        return new BestChunk(best, bestScore);
    }
}
