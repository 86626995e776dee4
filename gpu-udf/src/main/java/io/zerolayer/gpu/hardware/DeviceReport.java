package io.zerolayer.gpu.hardware;

import java.util.Set;

/**
 * What was seen of one device. GPU fields are null for a CPU and the other way round.
 *
 * @param kind {@code gpu} or {@code cpu}
 * @param name as the driver or /proc/cpuinfo reports it, e.g. "Tesla V100-SXM2-16GB"
 * @param memoryBandwidthBytesPerSec for a GPU, 2 × memory clock × bus width
 * @param computeCapability e.g. "9.0"
 * @param driverVersion CUDA driver version, e.g. 12040
 * @param runtimeVersion CUDA runtime version
 * @param cores logical cores, for a CPU
 * @param clockGhz base or current clock, for a CPU
 * @param flags instruction-set flags, for a CPU (avx2, fma, avx512f, avx512_vnni …)
 */
public record DeviceReport(
        String kind,
        int index,
        String name,
        long memoryBytes,
        Long freeMemoryBytes,
        Integer multiprocessors,
        Long memoryBandwidthBytesPerSec,
        String computeCapability,
        Integer driverVersion,
        Integer runtimeVersion,
        Integer cores,
        Double clockGhz,
        Set<String> flags) {

    public static DeviceReport gpu(
            int index,
            String name,
            long memoryBytes,
            long freeMemoryBytes,
            int multiprocessors,
            int memoryClockKhz,
            int busWidthBits,
            String computeCapability,
            int driverVersion,
            int runtimeVersion) {
        long bandwidth = 2L * memoryClockKhz * 1000L * busWidthBits / 8;
        return new DeviceReport(
                "gpu",
                index,
                name,
                memoryBytes,
                freeMemoryBytes,
                multiprocessors,
                bandwidth,
                computeCapability,
                driverVersion,
                runtimeVersion,
                null,
                null,
                Set.of());
    }

    public static DeviceReport cpu(
            String model, int cores, double clockGhz, long memoryBytes, Set<String> flags) {
        return new DeviceReport(
                "cpu",
                0,
                model,
                memoryBytes,
                null,
                null,
                null,
                null,
                null,
                null,
                cores,
                clockGhz,
                Set.copyOf(flags));
    }

    public boolean isGpu() {
        return kind.equals("gpu");
    }

    /** One line for logs and {@code zerolayer hardware}. */
    public String summary() {
        if (isGpu()) {
            return String.format(
                    java.util.Locale.ROOT,
                    "gpu:%d %s, %d SMs, %.1f GiB (%.1f free), %.0f GB/s, sm_%s, driver %d, runtime"
                            + " %d",
                    index,
                    name,
                    multiprocessors,
                    memoryBytes / 1073741824.0,
                    freeMemoryBytes == null ? Double.NaN : freeMemoryBytes / 1073741824.0,
                    memoryBandwidthBytesPerSec / 1e9,
                    computeCapability,
                    driverVersion,
                    runtimeVersion);
        }
        return String.format(
                java.util.Locale.ROOT,
                "cpu %s, %d cores at %.2f GHz, %.1f GiB, flags %s",
                name,
                cores,
                clockGhz,
                memoryBytes / 1073741824.0,
                flags.stream()
                        .filter(HardwareProfiles.INTERESTING_FLAGS::contains)
                        .sorted()
                        .toList());
    }
}
