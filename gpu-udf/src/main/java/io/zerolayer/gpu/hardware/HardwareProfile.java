package io.zerolayer.gpu.hardware;

import java.util.List;
import java.util.Map;

/**
 * Peak rates of a class of hardware. For a CPU profile the FLOP rates are per core and per GHz
 * ({@code flopsPerCyclePerCore}) and are scaled by the detected device in {@link #peakFlops}.
 *
 * @param peakFlops precision (fp32, fp16, tf32, int8) → FLOP/s, for a GPU
 * @param flopsPerCyclePerCore precision → FLOP per cycle per core, for a CPU
 * @param match regular expressions over the normalised device name
 * @param requiresFlags CPU flags the profile needs, all of them
 * @param memoryGb device memory, also used to tell apart profiles with the same name (A100 40/80)
 * @param launchOverheadMicros fixed cost of one encoder run beyond its FLOPs and bytes (operator
 *     dispatch, small kernels); measured by {@code zerolayer calibrate}
 * @param productEfficiency share of the peak the encoder's matrix products reach, from ONNX
 *     Runtime's profiler (1 when not calibrated)
 * @param otherOpsMicrosPerToken time of the encoder's other operators (norms, GELU, softmax,
 *     reshapes) per token, from the profiler (0 when not calibrated)
 */
public record HardwareProfile(
        String id,
        String kind,
        String source,
        Map<String, Double> peakFlops,
        Map<String, Double> flopsPerCyclePerCore,
        double memoryBandwidthBytesPerSec,
        double pcieBandwidthBytesPerSec,
        Double memoryGb,
        List<String> match,
        List<String> requiresFlags,
        double launchOverheadMicros,
        double productEfficiency,
        double otherOpsMicrosPerToken) {

    /** Peak FLOP/s at {@code precision} on {@code device}, or NaN when the profile does not say. */
    public double peakFlops(String precision, DeviceReport device) {
        if (kind.equals("cpu")) {
            Double perCycle = flopsPerCyclePerCore.get(precision);
            return perCycle == null || device == null || device.cores() == null
                    ? Double.NaN
                    : perCycle * device.cores() * device.clockGhz() * 1e9;
        }
        return peakFlops.getOrDefault(precision, Double.NaN);
    }
}
