package io.zerolayer.operators.compiler;

import io.zerolayer.gpu.EncoderModel;
import io.zerolayer.gpu.costmodel.OnnxCostModel;
import io.zerolayer.gpu.hardware.DeviceReport;
import io.zerolayer.gpu.hardware.HardwareProfile;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A first static cost model: what the encode node of a graph will cost on the slot's hardware, for
 * a representative request of its structure. Tokens come from the size buckets (a bucket's middle,
 * about 4 characters a token), FLOPs and weight bytes from the encoder's ONNX graph ({@link
 * OnnxCostModel}), activation bytes from the shapes, and time from a roofline: max(FLOPs / peak,
 * bytes / bandwidth) plus the profile's launch overhead (measured by {@code zerolayer calibrate}).
 * These are estimates printed by {@code zerolayer inspect}, not measurements; they cover the encode
 * node only (the other nodes are small and measured per request in the cost records).
 */
public final class CostEstimator {
    static final double CHARS_PER_TOKEN = 4.0;

    /** Average sentence in tokens, for sentence-chunked graphs. */
    static final int SENTENCE_TOKENS = 25;

    /**
     * A batch is padded to its longest sentence; about twice the average for the tens of sentences
     * of a document.
     */
    static final int PADDED_SENTENCE_TOKENS = 2 * SENTENCE_TOKENS;

    private final HardwareProfile profile;
    private final DeviceReport device;
    private final int threads;

    /**
     * @param threads intra-op threads of the slot's sessions (0: all cores); a CPU slot's peak is
     *     that of the cores it uses
     */
    public CostEstimator(HardwareProfile profile, DeviceReport device, int threads) {
        this.profile = profile;
        this.device = device;
        this.threads = threads;
    }

    private double peak(String precision) {
        double peak = profile.peakFlops(precision, device);
        if (profile.kind().equals("cpu")
                && threads > 0
                && device != null
                && device.cores() != null
                && device.cores() > threads) {
            peak = peak * threads / device.cores();
        }
        return peak;
    }

    /** Characters a text run of size bucket {@code b} has, taken at the bucket's middle. */
    static double representativeChars(int bucket) {
        return bucket == 0 ? 64 : 128 * Math.pow(2, bucket - 1) * 1.5;
    }

    /** Estimates for an encode node over {@code tokens} document tokens. */
    public Map<String, String> encode(EncoderModel model, double tokens, String strategy) {
        int seqLen;
        int sequences;
        if (strategy.equals("sentences")) {
            seqLen = PADDED_SENTENCE_TOKENS + 2;
            sequences = (int) Math.max(1, Math.ceil(tokens / SENTENCE_TOKENS));
        } else {
            seqLen = (int) Math.min(GraphCompiler.WINDOW_TOKENS, Math.max(1, tokens)) + 2;
            sequences =
                    (int)
                            Math.max(
                                    1,
                                    Math.ceil(
                                                    Math.max(
                                                                    0,
                                                                    tokens
                                                                            - GraphCompiler
                                                                                    .WINDOW_TOKENS)
                                                            / GraphCompiler.WINDOW_STRIDE)
                                            + 1);
        }
        OnnxCostModel graph = OnnxCostModel.of(model);
        long flops = graph.forwardFlops(sequences, seqLen);
        long activations =
                (long) sequences
                        * seqLen
                        * EncoderModel.HIDDEN_SIZE
                        * Float.BYTES
                        * EncoderModel.LAYERS
                        * 8;
        long bytes = graph.weightBytes() + activations;
        double peak = peak(model.precision().equals("int8") ? "int8" : "fp32");
        double computeSeconds =
                (Double.isNaN(peak) || peak <= 0 ? 0 : flops / (peak * profile.productEfficiency()))
                        + (double) sequences * seqLen * profile.otherOpsMicrosPerToken() / 1e6;
        double memorySeconds =
                profile.memoryBandwidthBytesPerSec() <= 0
                        ? 0
                        : bytes / profile.memoryBandwidthBytesPerSec();
        Map<String, String> out = new LinkedHashMap<>();
        out.put("estimate.tokens", String.valueOf(Math.round(tokens)));
        out.put("estimate.sequences", String.valueOf(sequences));
        out.put("estimate.seq-len", String.valueOf(seqLen));
        out.put("estimate.flops", String.valueOf(flops));
        out.put("estimate.bytes", String.valueOf(bytes));
        out.put("estimate.bound", computeSeconds >= memorySeconds ? "compute" : "memory");
        out.put(
                "estimate.micros",
                String.valueOf(
                        Math.round(
                                Math.max(computeSeconds, memorySeconds) * 1e6
                                        + profile.launchOverheadMicros())));
        return out;
    }

    public HardwareProfile profile() {
        return profile;
    }
}
