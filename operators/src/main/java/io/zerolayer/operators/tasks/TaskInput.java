package io.zerolayer.operators.tasks;

import io.zerolayer.operators.structure.DocumentContent;
import java.util.List;

/**
 * What a decode node works on: the document's chunks and their unit vectors, plus the task's query
 * texts (question or labels) and theirs, and what the plan's head node computed (null without one).
 */
public record TaskInput(
        DocumentContent content,
        List<Chunk> chunks,
        float[][] chunkVectors,
        List<String> queries,
        float[][] queryVectors,
        String model,
        java.util.function.UnaryOperator<float[][]> gram,
        HeadScores head) {

    /** Without a head. */
    public TaskInput(
            DocumentContent content,
            List<Chunk> chunks,
            float[][] chunkVectors,
            List<String> queries,
            float[][] queryVectors,
            String model,
            java.util.function.UnaryOperator<float[][]> gram) {
        this(content, chunks, chunkVectors, queries, queryVectors, model, gram, null);
    }

    /** Similarity products on the CPU, in the decoders' own loops. */
    public TaskInput(
            DocumentContent content,
            List<Chunk> chunks,
            float[][] chunkVectors,
            List<String> queries,
            float[][] queryVectors,
            String model) {
        this(content, chunks, chunkVectors, queries, queryVectors, model, null, null);
    }

    /** The length of the encoder's vectors (its catalog hidden size). */
    public int dimensions() {
        return chunkVectors.length > 0
                ? chunkVectors[0].length
                : queryVectors.length > 0 ? queryVectors[0].length : 0;
    }
}
