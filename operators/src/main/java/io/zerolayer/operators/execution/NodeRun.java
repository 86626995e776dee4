package io.zerolayer.operators.execution;

import io.zerolayer.operators.costs.PriceSheet;

/**
 * What one graph node did for one request: the raw material of a kernel cost record. Quantities
 * that cannot be derived are null.
 *
 * @param items sequences, chunks or vectors the node processed for this request
 * @param tokens real (non-padding) tokens touched, or null
 * @param flops floating-point operations derived from shapes, or null
 * @param memoryReadBytes tensor bytes the node read (its inputs), or null
 * @param memoryWriteBytes tensor bytes it wrote (its outputs), or null
 * @param pcieHostToDeviceBytes bytes copied to the device, or null where nothing crossed PCIe
 * @param pcieDeviceToHostBytes bytes copied back to the host, or null likewise
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
        Long memoryReadBytes,
        Long memoryWriteBytes,
        Long pcieHostToDeviceBytes,
        Long pcieDeviceToHostBytes,
        int batchItems,
        PriceSheet.Money money) {

    /** Bytes read and written, or null when neither is known. */
    public Long memoryBytes() {
        return sum(memoryReadBytes, memoryWriteBytes);
    }

    /** Bytes over PCIe both ways, or null when nothing crossed it. */
    public Long pcieBytes() {
        return sum(pcieHostToDeviceBytes, pcieDeviceToHostBytes);
    }

    private static Long sum(Long a, Long b) {
        return a == null && b == null ? null : (a == null ? 0 : a) + (b == null ? 0 : b);
    }

    /** A node that ran for this request alone, not yet billed; {@code memoryBytes} it read. */
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
                null,
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
                memoryReadBytes,
                memoryWriteBytes,
                pcieHostToDeviceBytes,
                pcieDeviceToHostBytes,
                batchItems,
                bill);
    }

    /** This run under another node id (a part of a split request's, so its records stay apart). */
    public NodeRun withNodeId(String id) {
        return new NodeRun(
                id,
                kind,
                model,
                startedAtMillis,
                durationNanos,
                items,
                tokens,
                flops,
                memoryReadBytes,
                memoryWriteBytes,
                pcieHostToDeviceBytes,
                pcieDeviceToHostBytes,
                batchItems,
                money);
    }
}
