package io.zerolayer.operators.execution;

import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.KernelCostRecord;
import io.zerolayer.schemas.Sha256;
import java.time.Instant;

/** Kernel cost records: one per executed node of a request, with a replay-stable id. */
public final class CostRecords {
    private CostRecords() {}

    /**
     * A cost record's id: hex SHA-256 of request, graph and node, so the same kernel of the same
     * request gets the same id however often it is replayed.
     */
    public static String recordId(String requestId, String graphId, String nodeId) {
        return Sha256.hex(requestId + "\n" + graphId + "\n" + nodeId);
    }

    /**
     * The record of {@code node} run for {@code request} on graph {@code graphId}.
     *
     * @param device where it ran ({@code cpu}, {@code cuda:0})
     * @param hardwareProfile the profile id it was compiled and billed for
     * @param priceSheetVersion the version of the prices its money was computed with
     */
    public static KernelCostRecord of(
            AnalysisRequest request,
            String graphId,
            NodeRun node,
            String device,
            String hardwareProfile,
            String priceSheetVersion) {
        return KernelCostRecord.newBuilder()
                .setRecordId(recordId(request.getRequestId(), graphId, node.nodeId()))
                .setRequestId(request.getRequestId())
                .setTenantId(request.getTenantId())
                .setGraphId(graphId)
                .setNodeId(node.nodeId())
                .setKernel(node.kind())
                .setModel(node.model())
                .setDevice(device)
                .setHardwareProfile(hardwareProfile)
                .setStartedAt(Instant.ofEpochMilli(node.startedAtMillis()))
                .setDurationNanos(node.durationNanos())
                .setBatchSize(node.batchItems())
                .setRequestItems(node.items())
                .setTokens(node.tokens())
                .setFlops(node.flops())
                .setMemoryBytes(node.memoryBytes())
                .setMemoryReadBytes(node.memoryReadBytes())
                .setMemoryWriteBytes(node.memoryWriteBytes())
                .setPcieBytes(node.pcieBytes())
                .setPcieHostToDeviceBytes(node.pcieHostToDeviceBytes())
                .setPcieDeviceToHostBytes(node.pcieDeviceToHostBytes())
                .setComputeNanoUsd(node.money().compute())
                .setMemoryNanoUsd(node.money().memory())
                .setPcieNanoUsd(node.money().pcie())
                .setDeviceTimeNanoUsd(node.money().deviceTime())
                .setPriceSheetVersion(priceSheetVersion)
                .build();
    }
}
