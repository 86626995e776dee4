package io.zerolayer.gpu.calibration;

import static io.zerolayer.gpu.calibration.OnnxModelBuilder.FLOAT;
import static io.zerolayer.gpu.calibration.OnnxModelBuilder.INT32;
import static io.zerolayer.gpu.calibration.OnnxModelBuilder.INT8;
import static io.zerolayer.gpu.calibration.OnnxModelBuilder.UINT8;
import static io.zerolayer.gpu.calibration.OnnxModelBuilder.tensor;

import ai.onnxruntime.OnnxJavaType;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import io.zerolayer.gpu.EncoderException;
import io.zerolayer.gpu.EncoderModel;
import io.zerolayer.gpu.SentenceEncoder;
import io.zerolayer.gpu.TokenBatch;
import io.zerolayer.gpu.hardware.DeviceReport;
import io.zerolayer.gpu.hardware.HardwareProfiles;
import java.nio.ByteBuffer;
import java.nio.FloatBuffer;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Measures this machine through ONNX Runtime, the way graphs will run: a square matrix product in
 * fp32 ({@code MatMul}) and int8 ({@code MatMulInteger}) on one thread (per-core peaks), and an
 * elementwise {@code Add} over tensors far larger than the caches on all cores (memory bandwidth).
 * The result is a CPU profile for hardware-profiles.yaml.
 */
public final class Calibration {
    /** Measured rates. */
    public record Result(
            double fp32FlopsPerCore,
            double int8OpsPerCore,
            double memoryBytesPerSec,
            double encoderOverheadMicros,
            double productEfficiency,
            double otherOpsMicrosPerToken,
            DeviceReport cpu) {

        /**
         * A hardware-profiles.yaml entry holding these rates (per core and GHz, as CPU profiles
         * do).
         */
        public String profileYaml(String id) {
            double perCycle = cpu.clockGhz() * 1e9;
            return String.format(
                    Locale.ROOT,
                    """
                      %s:
                        kind: cpu
                        source: "zerolayer calibrate on %s at %s: MatMul %.1f GFLOP/s, MatMulInteger %.1f GOP/s per core, Add sweep %.1f GB/s"
                        flops-per-cycle-per-core: {fp32: %.2f, int8: %.2f}
                        memory-bandwidth-gbs: %.1f
                        launch-overhead-us: %.0f
                        product-efficiency: %.3f
                        other-ops-us-per-token: %.3f
                    """,
                    id,
                    cpu.name().replace('"', '\''),
                    Instant.now(),
                    fp32FlopsPerCore / 1e9,
                    int8OpsPerCore / 1e9,
                    memoryBytesPerSec / 1e9,
                    fp32FlopsPerCore / perCycle,
                    int8OpsPerCore / perCycle,
                    memoryBytesPerSec / 1e9,
                    encoderOverheadMicros,
                    productEfficiency,
                    otherOpsMicrosPerToken);
        }

        /**
         * The entry with the host nodes' measured rates added: µs per document token and µs per
         * call.
         */
        public String profileYaml(
                String id,
                Map<String, Double> hostMicrosPerToken,
                Map<String, Double> hostMicrosPerCall) {
            return profileYaml(id)
                    + "    host-us-per-token: "
                    + flowMap(hostMicrosPerToken)
                    + "\n    host-us-per-call: "
                    + flowMap(hostMicrosPerCall)
                    + "\n";
        }

        private static String flowMap(Map<String, Double> rates) {
            StringBuilder out = new StringBuilder();
            rates.forEach(
                    (kind, rate) ->
                            out.append(out.isEmpty() ? "" : ", ")
                                    .append(kind)
                                    .append(": ")
                                    .append(String.format(Locale.ROOT, "%.4f", rate)));
            return "{" + out + "}";
        }

        public String suggestedId() {
            return "calibrated-" + HardwareProfiles.normalise(cpu.name());
        }
    }

    private final OrtEnvironment env = OrtEnvironment.getEnvironment();
    private final Consumer<String> progress;

    public Calibration(Consumer<String> progress) {
        this.progress = progress;
    }

    public Result run(DeviceReport cpu, int matrixSize, int repetitions) {
        try {
            long n = matrixSize;
            double flops = 2.0 * n * n * n;
            progress.accept(String.format(Locale.ROOT, "fp32 MatMul %d×%d on 1 thread …", n, n));
            double fp32 =
                    flops
                            / seconds(
                                    "MatMul",
                                    FLOAT,
                                    floats(n * n),
                                    FLOAT,
                                    floats(n * n),
                                    FLOAT,
                                    1,
                                    repetitions,
                                    n,
                                    n);
            progress.accept(
                    String.format(
                            Locale.ROOT,
                            "  %.1f GFLOP/s%nint8 MatMulInteger %d×%d on 1 thread …",
                            fp32 / 1e9,
                            n,
                            n));
            double int8 =
                    flops
                            / seconds(
                                    "MatMulInteger",
                                    UINT8,
                                    bytes(n * n, OnnxJavaType.UINT8),
                                    INT8,
                                    bytes(n * n, OnnxJavaType.INT8),
                                    INT32,
                                    1,
                                    repetitions,
                                    n,
                                    n);
            long elements = 16L << 20; // 64 MiB per float tensor: far past any cache
            progress.accept(
                    String.format(
                            Locale.ROOT,
                            "  %.1f GOP/s%nmemory: Add over 3 × %d MiB on all cores …",
                            int8 / 1e9,
                            elements * 4 >> 20));
            double memory =
                    3.0
                            * elements
                            * Float.BYTES
                            / seconds(
                                    "Add",
                                    FLOAT,
                                    floats(elements),
                                    FLOAT,
                                    floats(elements),
                                    FLOAT,
                                    0,
                                    repetitions,
                                    elements);
            progress.accept(
                    String.format(
                            Locale.ROOT,
                            "  %.1f GB/s%nencoder launch overhead (one 3-token sequence, 1 thread)"
                                    + " …",
                            memory / 1e9));
            double overhead = encoderOverheadMicros(repetitions);
            progress.accept(
                    String.format(
                            Locale.ROOT,
                            "  %.0f µs%nencoder under ONNX Runtime's profiler (16 × 52 tokens, 1"
                                    + " thread) …",
                            overhead));
            double[] profiled = profileEncoder(fp32);
            progress.accept(
                    String.format(
                            Locale.ROOT,
                            "  matrix products at %.0f %% of the MatMul peak; other operators %.2f"
                                    + " µs per token",
                            profiled[0] * 100,
                            profiled[1]));
            return new Result(fp32, int8, memory, overhead, profiled[0], profiled[1], cpu);
        } catch (OrtException e) {
            throw new EncoderException("Calibration failed in ONNX Runtime: " + e.getMessage(), e);
        }
    }

    /**
     * What an encoder run costs beyond its arithmetic: the fastest run over a single 3-token
     * sequence, whose FLOPs are negligible.
     */
    private static double encoderOverheadMicros(int repetitions) {
        try (SentenceEncoder encoder = SentenceEncoder.open(EncoderModel.MINILM_L6_V2_FP32, 1)) {
            TokenBatch tiny = encoder.tokenize(List.of("a"));
            encoder.encode(tiny);
            long best = Long.MAX_VALUE;
            for (int i = 0; i < repetitions * 4; i++) {
                long start = System.nanoTime();
                encoder.encode(tiny);
                best = Math.min(best, System.nanoTime() - start);
            }
            return best / 1e3;
        }
    }

    /**
     * Runs the fp32 encoder with ONNX Runtime's profiler and splits its kernel time into matrix
     * products and everything else: returns {efficiency of the products against the measured MatMul
     * peak, microseconds of the other operators per token}.
     */
    private double[] profileEncoder(double matmulPeak) throws OrtException {
        int batch = 16;
        int seqLen = 52;
        int runs = 3;
        java.nio.file.Path dir;
        try {
            dir = java.nio.file.Files.createTempDirectory("zerolayer-ort-profile-");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        byte[] weights;
        try (var in = EncoderModel.MINILM_L6_V2_FP32.openWeights()) {
            weights = in.readAllBytes();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        OrtSession.SessionOptions options = new OrtSession.SessionOptions();
        options.setIntraOpNumThreads(1);
        options.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.ALL_OPT);
        options.enableProfiling(dir.resolve("encoder").toString());
        long[] shape = {batch, seqLen};
        long[] ids = new long[batch * seqLen];
        java.util.Arrays.fill(ids, 2000L);
        long[] mask = new long[batch * seqLen];
        java.util.Arrays.fill(mask, 1L);
        long[] types = new long[batch * seqLen];
        String trace;
        try (OrtSession session = env.createSession(weights, options)) {
            for (int i = 0; i < runs; i++) {
                try (OnnxTensor a =
                                OnnxTensor.createTensor(env, java.nio.LongBuffer.wrap(ids), shape);
                        OnnxTensor b =
                                OnnxTensor.createTensor(
                                        env, java.nio.LongBuffer.wrap(mask), shape);
                        OnnxTensor c =
                                OnnxTensor.createTensor(
                                        env, java.nio.LongBuffer.wrap(types), shape)) {
                    session.run(Map.of("input_ids", a, "attention_mask", b, "token_type_ids", c))
                            .close();
                }
            }
            trace = session.endProfiling();
        }
        OrtProfile profile = OrtProfile.read(java.nio.file.Path.of(trace));
        double productFlops =
                (double)
                                io.zerolayer.gpu.costmodel.OnnxCostModel.of(
                                                EncoderModel.MINILM_L6_V2_FP32)
                                        .forwardFlops(batch, seqLen)
                        * runs;
        double efficiency =
                Math.min(1.0, productFlops / (profile.productMicros() / 1e6) / matmulPeak);
        double otherPerToken = (double) profile.otherMicros() / runs / (batch * seqLen);
        return new double[] {efficiency, otherPerToken};
    }

    /**
     * Fastest run, in seconds, of a single-operator model {@code C = op(A, B)} whose operands and
     * result all have {@code shape}.
     */
    private double seconds(
            String op,
            int aType,
            TensorData a,
            int bType,
            TensorData b,
            int outType,
            int threads,
            int repetitions,
            long... shape)
            throws OrtException {
        byte[] model =
                OnnxModelBuilder.singleOp(
                        op,
                        List.of(tensor("A", aType, shape), tensor("B", bType, shape)),
                        tensor("C", outType, shape));
        return best(model, threads, repetitions, Map.of("A", a, "B", b));
    }

    /** Fastest of {@code repetitions} runs after one warm-up, in seconds. */
    private double best(byte[] model, int threads, int repetitions, Map<String, TensorData> inputs)
            throws OrtException {
        OrtSession.SessionOptions options = new OrtSession.SessionOptions();
        if (threads > 0) {
            options.setIntraOpNumThreads(threads);
        }
        try (OrtSession session = env.createSession(model, options)) {
            Map<String, OnnxTensor> tensors = new java.util.HashMap<>();
            try {
                for (Map.Entry<String, TensorData> e : inputs.entrySet()) {
                    tensors.put(
                            e.getKey(),
                            e.getValue().tensor(env, session.getInputInfo().get(e.getKey())));
                }
                session.run(tensors).close();
                double best = Double.MAX_VALUE;
                for (int i = 0; i < repetitions; i++) {
                    long start = System.nanoTime();
                    session.run(tensors).close();
                    best = Math.min(best, (System.nanoTime() - start) / 1e9);
                }
                return best;
            } finally {
                tensors.values().forEach(OnnxTensor::close);
            }
        }
    }

    private interface TensorData {
        OnnxTensor tensor(OrtEnvironment env, ai.onnxruntime.NodeInfo info) throws OrtException;
    }

    private static TensorData floats(long count) {
        return (env, info) -> {
            FloatBuffer buffer =
                    ByteBuffer.allocateDirect((int) (count * Float.BYTES))
                            .order(java.nio.ByteOrder.nativeOrder())
                            .asFloatBuffer();
            for (int i = 0; i < count; i++) {
                buffer.put(i, (i % 97) / 97f);
            }
            return OnnxTensor.createTensor(
                    env, buffer, ((ai.onnxruntime.TensorInfo) info.getInfo()).getShape());
        };
    }

    private static TensorData bytes(long count, OnnxJavaType type) {
        return (env, info) -> {
            ByteBuffer buffer = ByteBuffer.allocateDirect((int) count);
            for (int i = 0; i < count; i++) {
                buffer.put(i, (byte) (i % 13));
            }
            return OnnxTensor.createTensor(
                    env, buffer, ((ai.onnxruntime.TensorInfo) info.getInfo()).getShape(), type);
        };
    }
}
