package io.zerolayer.operators.execution;

/**
 * What one graph node did for one request: the raw material of a kernel cost record. Quantities
 * that cannot be derived are null.
 *
 * @param items sequences, chunks or vectors the node processed
 * @param tokens real (non-padding) tokens touched, or null
 * @param flops floating-point operations derived from shapes, or null
 * @param memoryBytes tensor bytes read and written, or null
 */
public record NodeRun(
        String nodeId,
        String kind,
        String model,
        long startedAtMillis,
        long durationNanos,
        int items,
        Long tokens,
        Long flops,
        Long memoryBytes) {}
