package io.zerolayer.operators.execution;

import io.zerolayer.gpu.ArenaExtendStrategy;
import java.io.Serializable;
import java.util.Map;

/**
 * How the executor runs compiled graphs: micro-batching, the main path's time limit, dynamic
 * pruning, compliance modes and fault injection for tests.
 *
 * @param batchSize requests per micro-batch; 0 takes each graph's own {@code batch-size} (chosen by
 *     the compiler from the cost model), a positive value replaces it in every graph
 * @param maxQueueDelayMillis longest a request waits for its batch to fill before the batch runs
 *     anyway; each graph waits at most its plan's {@code queue-delay-ms}, capped by this
 * @param mainPathTimeoutMillis longest one batch may run on the main path before it is cancelled
 *     and run on the fallback; 0 for no limit besides the requests' deadlines
 * @param failMainEveryNthBatch fault injection: the main path of every n-th batch of a slot throws
 *     (0: off)
 * @param failFallback fault injection: the fallback path throws too, so failed batches are answered
 *     FAILED
 * @param pruneBelowFreeRatio optional nodes are skipped while the slot's free memory share is below
 *     this (0 to 1)
 * @param injectedFreeRatio fault injection: the free memory share pruning sees (negative: off, the
 *     real one)
 * @param complianceMode the mode of tenants not in {@code tenantCompliance}
 * @param tenantCompliance compliance mode per tenant id
 * @param gpu how slots map to CUDA devices and the CUDA provider's options
 */
public record ExecutionSettings(
        int batchSize,
        long maxQueueDelayMillis,
        long mainPathTimeoutMillis,
        int failMainEveryNthBatch,
        boolean failFallback,
        double pruneBelowFreeRatio,
        double injectedFreeRatio,
        ComplianceMode complianceMode,
        Map<String, ComplianceMode> tenantCompliance,
        Gpu gpu)
        implements Serializable {

    /**
     * @param deviceIds CUDA devices the slots of a TaskManager use, slot i taking {@code
     *     deviceIds[i % n]}; empty: every device detected
     * @param memoryLimitBytes the CUDA provider's arena limit per session; 0: none
     * @param arenaStrategy how the CUDA provider's arena grows
     */
    public record Gpu(
            java.util.List<Integer> deviceIds,
            long memoryLimitBytes,
            ArenaExtendStrategy arenaStrategy)
            implements Serializable {
        public static final Gpu DEFAULTS =
                new Gpu(java.util.List.of(), 0, ArenaExtendStrategy.NEXT_POWER_OF_TWO);

        public Gpu {
            deviceIds = java.util.List.copyOf(deviceIds);
        }

        /** The CUDA device of slot {@code slot}, given how many devices the TaskManager has. */
        public int deviceFor(int slot, int devicesSeen) {
            if (!deviceIds.isEmpty()) {
                return deviceIds.get(slot % deviceIds.size());
            }
            return devicesSeen <= 0 ? 0 : slot % devicesSeen;
        }
    }

    /**
     * The plan's batch sizes, 100 ms of queueing at most, no time limit, no faults, pruning under
     * 15% free memory, standard compliance.
     */
    public static final ExecutionSettings DEFAULTS = new ExecutionSettings(0, 100, 0, 0, false);

    public ExecutionSettings {
        if (batchSize < 0 || maxQueueDelayMillis < 0 || mainPathTimeoutMillis < 0) {
            throw new IllegalArgumentException(
                    "Batch size, queue delay and main-path timeout must not be negative: "
                            + batchSize
                            + ", "
                            + maxQueueDelayMillis
                            + " ms, "
                            + mainPathTimeoutMillis
                            + " ms");
        }
        if (failMainEveryNthBatch < 0) {
            throw new IllegalArgumentException(
                    "fault-injection.fail-main-every-nth-batch must be 0 (off) or positive");
        }
        if (pruneBelowFreeRatio < 0 || pruneBelowFreeRatio > 1) {
            throw new IllegalArgumentException(
                    "pruning.free-memory-threshold must be between 0 and 1, got "
                            + pruneBelowFreeRatio);
        }
        tenantCompliance = Map.copyOf(tenantCompliance);
        java.util.Objects.requireNonNull(complianceMode, "complianceMode");
    }

    /** Batching, time limit and faults; pruning, compliance and memory at their defaults. */
    public ExecutionSettings(
            int batchSize,
            long maxQueueDelayMillis,
            long mainPathTimeoutMillis,
            int failMainEveryNthBatch,
            boolean failFallback) {
        this(
                batchSize,
                maxQueueDelayMillis,
                mainPathTimeoutMillis,
                failMainEveryNthBatch,
                failFallback,
                0.15,
                -1,
                ComplianceMode.STANDARD,
                Map.of(),
                Gpu.DEFAULTS);
    }

    /**
     * The compliance level of a request: its tenant's ({@code registered}, the tenant registry's,
     * else the settings'), or higher when its {@code compliance} attribute asks — never lower.
     *
     * @param registered the level the tenant registry gives the tenant; null when it gives none
     */
    public ComplianceMode complianceOf(
            String tenantId, Map<String, String> attributes, ComplianceMode registered) {
        ComplianceMode tenant =
                registered != null
                        ? registered
                        : tenantCompliance.getOrDefault(tenantId, complianceMode);
        String requested = attributes == null ? null : attributes.get("compliance");
        return ComplianceMode.max(tenant, ComplianceMode.ofAttribute(requested));
    }

    /** {@link #complianceOf(String, Map, ComplianceMode)} without a tenant registry. */
    public ComplianceMode complianceOf(String tenantId, Map<String, String> attributes) {
        return complianceOf(tenantId, attributes, null);
    }

    public ExecutionSettings withBatchSize(int size) {
        return new ExecutionSettings(
                size,
                maxQueueDelayMillis,
                mainPathTimeoutMillis,
                failMainEveryNthBatch,
                failFallback,
                pruneBelowFreeRatio,
                injectedFreeRatio,
                complianceMode,
                tenantCompliance,
                gpu);
    }

    public ExecutionSettings withMemory(double pruneBelow, double injected) {
        return new ExecutionSettings(
                batchSize,
                maxQueueDelayMillis,
                mainPathTimeoutMillis,
                failMainEveryNthBatch,
                failFallback,
                pruneBelow,
                injected,
                complianceMode,
                tenantCompliance,
                gpu);
    }

    public ExecutionSettings withCompliance(
            ComplianceMode mode, Map<String, ComplianceMode> tenants) {
        return new ExecutionSettings(
                batchSize,
                maxQueueDelayMillis,
                mainPathTimeoutMillis,
                failMainEveryNthBatch,
                failFallback,
                pruneBelowFreeRatio,
                injectedFreeRatio,
                mode,
                tenants,
                gpu);
    }

    public ExecutionSettings withGpu(Gpu settings) {
        return new ExecutionSettings(
                batchSize,
                maxQueueDelayMillis,
                mainPathTimeoutMillis,
                failMainEveryNthBatch,
                failFallback,
                pruneBelowFreeRatio,
                injectedFreeRatio,
                complianceMode,
                tenantCompliance,
                settings);
    }
}
