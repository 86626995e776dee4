package io.zerolayer.operators.tasks;

/**
 * @param output the result in the requested format
 * @param flops multiply-adds ×2 of the similarity computations
 */
public record TaskResult(String output, long flops) {}
