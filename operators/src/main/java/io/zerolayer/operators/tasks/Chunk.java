package io.zerolayer.operators.tasks;

/**
 * A piece of a scope that is encoded as one sequence.
 *
 * @param start inclusive character offset in the prompt
 * @param end exclusive character offset in the prompt
 */
public record Chunk(String scope, long[] tokenIds, int start, int end, String text) {}
