package io.zerolayer.gpu;

import java.io.Serializable;

/**
 * Where an ONNX session runs: the CPU, or one CUDA device with the provider options from config.
 *
 * @param deviceId CUDA device ordinal (ignored for the CPU)
 * @param memoryLimitBytes the CUDA provider's arena limit ({@code gpu_mem_limit}); 0: no limit
 * @param arenaStrategy how the provider's arena grows ({@code arena_extend_strategy})
 */
public record ExecutionDevice(
        String kind, int deviceId, long memoryLimitBytes, ArenaExtendStrategy arenaStrategy)
        implements Serializable {

    public static final ExecutionDevice CPU =
            new ExecutionDevice("cpu", 0, 0, ArenaExtendStrategy.NEXT_POWER_OF_TWO);

    public ExecutionDevice {
        if (!kind.equals("cpu") && !kind.equals("cuda")) {
            throw new IllegalArgumentException("Device kind must be cpu or cuda, got " + kind);
        }
        java.util.Objects.requireNonNull(arenaStrategy, "arenaStrategy");
    }

    public static ExecutionDevice cuda(
            int deviceId, long memoryLimitBytes, ArenaExtendStrategy arenaStrategy) {
        return new ExecutionDevice("cuda", deviceId, memoryLimitBytes, arenaStrategy);
    }

    public boolean isCuda() {
        return kind.equals("cuda");
    }

    /** {@code cpu} or {@code cuda:N}, as cost records name devices. */
    @Override
    public String toString() {
        return isCuda() ? "cuda:" + deviceId : "cpu";
    }
}
