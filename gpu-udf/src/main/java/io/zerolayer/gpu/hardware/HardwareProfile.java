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
 * @param hostMicrosPerToken time per document token of the graph nodes that run on the host CPU
 *     whatever the device ({@code tokenize}, {@code chunk}, {@code pool}, {@code decode}, and
 *     {@code decode/DECODER} where a decoder differs from the rest); {@link
 *     #DEFAULT_HOST_MICROS_PER_TOKEN} until {@code zerolayer calibrate} measures them
 * @param hostMicrosPerCall fixed time of one call of those nodes (a tokenize call per text run and
 *     query; one call of each other node), on top of the per-token time
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
        double otherOpsMicrosPerToken,
        Map<String, Double> hostMicrosPerToken,
        Map<String, Double> hostMicrosPerCall) {

    /** The host node kinds whose cost is modelled per token. */
    public static final List<String> HOST_NODES = List.of("tokenize", "chunk", "pool", "decode");

    /**
     * Host rates measured by {@code zerolayer calibrate} on the 2-core x86-64 development machine
     * (one thread); used by profiles that do not carry their own.
     */
    public static final Map<String, Double> DEFAULT_HOST_MICROS_PER_TOKEN =
            Map.of("tokenize", 3.25, "chunk", 0.018, "pool", 0.27, "decode", 0.19);

    /** Fixed host cost per call, from the same measurement. */
    public static final Map<String, Double> DEFAULT_HOST_MICROS_PER_CALL =
            Map.of("tokenize", 46.0, "chunk", 3.9, "pool", 4.75, "decode", 153.0);

    public HardwareProfile {
        hostMicrosPerToken = withDefaults(DEFAULT_HOST_MICROS_PER_TOKEN, hostMicrosPerToken);
        hostMicrosPerCall = withDefaults(DEFAULT_HOST_MICROS_PER_CALL, hostMicrosPerCall);
    }

    private static Map<String, Double> withDefaults(
            Map<String, Double> defaults, Map<String, Double> given) {
        Map<String, Double> merged = new java.util.TreeMap<>(defaults);
        if (given != null) {
            merged.putAll(given);
        }
        return java.util.Collections.unmodifiableMap(merged);
    }

    /**
     * Fixed host time of one call of a node kind. A kind {@code decode/DECODER} falls back to
     * {@code decode} when the profile has no rate for that decoder.
     */
    public double hostMicrosPerCall(String kind) {
        return rate(hostMicrosPerCall, kind);
    }

    private static double rate(Map<String, Double> rates, String kind) {
        Double rate = rates.get(kind);
        if (rate == null && kind.indexOf('/') > 0) {
            rate = rates.get(kind.substring(0, kind.indexOf('/')));
        }
        return rate == null ? 0.0 : rate;
    }

    /**
     * Short hash of every figure of this profile. A graph's plan follows from these figures, so a
     * graph id names the profile by id and fingerprint: recalibrating a profile under the same id
     * gives new graph ids rather than old ids with different plans.
     */
    public String fingerprint() {
        return io.zerolayer.gpu.Sha256.hex(toString()).substring(0, 8);
    }

    /** Host time per document token of a node kind; 0 for kinds not modelled per token. */
    public double hostMicrosPerToken(String kind) {
        return rate(hostMicrosPerToken, kind);
    }

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
