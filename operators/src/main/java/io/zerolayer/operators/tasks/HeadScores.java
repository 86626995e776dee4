package io.zerolayer.operators.tasks;

import io.zerolayer.operators.heads.ClassifierHead;

/**
 * What a plan's {@code head} node computed for one request: the head's logits for each of the
 * document's chunks, one row per chunk, one column per label of the head.
 */
public record HeadScores(ClassifierHead head, double[][] chunkLogits) {

    /** The head's logits of every chunk of {@code chunkVectors}. */
    public static HeadScores of(ClassifierHead head, float[][] chunkVectors) {
        double[][] logits = new double[chunkVectors.length][];
        for (int i = 0; i < chunkVectors.length; i++) {
            logits[i] = head.logits(chunkVectors[i]);
        }
        return new HeadScores(head, logits);
    }
}
