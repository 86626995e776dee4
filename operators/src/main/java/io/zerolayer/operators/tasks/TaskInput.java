package io.zerolayer.operators.tasks;

import io.zerolayer.operators.structure.DocumentContent;
import java.util.List;

/**
 * What a decode node works on: the document's chunks and their unit vectors, plus the task's query
 * texts (question or labels) and theirs.
 */
public record TaskInput(
        DocumentContent content,
        List<Chunk> chunks,
        float[][] chunkVectors,
        List<String> queries,
        float[][] queryVectors,
        String model,
        java.util.function.UnaryOperator<float[][]> gram) {

    /** Similarity products on the CPU, in the decoders' own loops. */
    public TaskInput(
            DocumentContent content,
            List<Chunk> chunks,
            float[][] chunkVectors,
            List<String> queries,
            float[][] queryVectors,
            String model) {
        this(content, chunks, chunkVectors, queries, queryVectors, model, null);
    }
}
