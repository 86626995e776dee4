package io.zerolayer.operators.execution;

import io.zerolayer.operators.costs.PriceSheet;

/**
 * What one graph node did for one request: the raw material of a kernel cost record. Quantities
 * that cannot be derived are null.
 *
 * @param items sequences, chunks or vectors the node processed for this request
 * @param tokens real (non-padding) tokens touched, or null
 * @param flops floating-point operations derived from shapes, or null
 * @param memoryBytes tensor bytes read and written, or null
 * @param pcieBytes bytes over PCIe (host to device and back), or null where nothing crossed it
 * @param batchItems items the node's call processed for the whole batch (this request's share is
 *     {@code items} of them)
 * @param money this request's bill for the node, split from the batch's by tokens where the node
 *     ran for a batch
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
        Long memoryBytes,
        Long pcieBytes,
        int batchItems,
        PriceSheet.Money money) {

    /** A node that ran for this request alone, not yet billed. */
    public NodeRun(
            String nodeId,
            String kind,
            String model,
            long startedAtMillis,
            long durationNanos,
            int items,
            Long tokens,
            Long flops,
            Long memoryBytes) {
        this(
                nodeId,
                kind,
                model,
                startedAtMillis,
                durationNanos,
                items,
                tokens,
                flops,
                memoryBytes,
                null,
                items,
                PriceSheet.Money.ZERO);
    }

    public NodeRun billed(PriceSheet.Money bill) {
        return new NodeRun(
                nodeId,
                kind,
                model,
                startedAtMillis,
                durationNanos,
                items,
                tokens,
                flops,
                memoryBytes,
                pcieBytes,
                batchItems,
                bill);
    }
}
