package io.zerolayer.operators.tasks;

/**
 * @param output the result in the requested format
 * @param flops multiply-adds ×2 of the similarity computations
 * @param note what the reply's diagnostics should say about the result (a classification answered
 *     {@code unknown}), or null
 */
public record TaskResult(String output, long flops, String note) {
    public TaskResult(String output, long flops) {
        this(output, flops, null);
    }
}
