package io.zerolayer.gpu.quantization;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import io.zerolayer.gpu.EncoderModel;
import io.zerolayer.gpu.costmodel.OnnxGraph;
import io.zerolayer.gpu.onnx.OnnxWriter;
import io.zerolayer.gpu.onnx.ProtoMessage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.FloatBuffer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PerRowQuantizationTest {
    private static final int K = 4;
    private static final int N = 5;
    private static final byte[] W = {
        12, -7, 100, -128, 3, //
        -55, 90, 0, 17, -1, //
        127, -30, -99, 64, 8, //
        5, 44, -12, -60, 77
    };
    private static final byte[] W_ZERO_POINT = {0, 3, -2, 10, -5};
    private static final float[] W_SCALE = {0.01f, 0.02f, 0.005f, 0.03f, 0.011f};

    /** Rows of every kind: mixed signs, all positive, all negative, all zero, one large outlier. */
    private static final float[][] ROWS = {
        {0.3f, -1.2f, 2.5f, 0.0f},
        {0.1f, 0.2f, 0.3f, 0.4f},
        {-3f, -0.5f, -0.25f, -1f},
        {0f, 0f, 0f, 0f},
        {40f, -0.01f, 0.02f, 0.5f}
    };

    @Test
    void eachRowIsQuantisedOnItsOwnAsDynamicQuantizeLinearWouldQuantiseItAlone() throws Exception {
        PerRowQuantization.Result result = PerRowQuantization.rewrite(tinyModel(false));
        assertThat(result.rewritten()).isEqualTo(1);
        assertThat(result.batchInvariant()).isTrue();
        float[][] together = run(result.model(), ROWS);
        for (int r = 0; r < ROWS.length; r++) {
            float[] expected = perRowReference(ROWS[r]);
            assertThat(together[r]).as("row %d", r).containsExactly(expected, within(1e-6f));
            float[] alone = run(result.model(), new float[][] {ROWS[r]})[0];
            assertThat(alone).as("row %d alone", r).containsExactly(together[r], within(0f));
        }
    }

    @Test
    void theOriginalQuantisesTheWholeTensorAtOnce() throws Exception {
        // the outlier row widens every other row's scale: what the rewrite removes
        float[] alone = run(tinyModel(false), new float[][] {ROWS[0]})[0];
        float[] beside = run(tinyModel(false), new float[][] {ROWS[0], ROWS[4]})[0];
        assertThat(maxDifference(alone, beside)).isGreaterThan(1e-3f);
    }

    @Test
    void aQuantiserWhoseCodesFeedAnythingButMatMulIntegerIsKept() {
        byte[] model = tinyModel(true);
        PerRowQuantization.Result result = PerRowQuantization.rewrite(model);
        assertThat(result.rewritten()).isZero();
        assertThat(result.kept()).isEqualTo(1);
        assertThat(result.batchInvariant()).isFalse();
        assertThat(result.model()).isSameAs(model);
    }

    @Test
    void everyQuantiserOfTheShippedInt8EncodersIsRewrittenAndTheFp32OnesAreUntouched()
            throws IOException {
        for (EncoderModel m : EncoderModel.values()) {
            if (!m.shipped()) {
                continue;
            }
            byte[] onnx;
            try (InputStream in = m.openWeights()) {
                onnx = in.readAllBytes();
            }
            int quantisers =
                    OnnxGraph.read(new ByteArrayInputStream(onnx))
                            .opCounts()
                            .getOrDefault("DynamicQuantizeLinear", 0);
            PerRowQuantization.Result result = PerRowQuantization.rewrite(onnx);
            assertThat(result.rewritten()).as(m.id()).isEqualTo(quantisers);
            assertThat(result.kept()).as(m.id()).isZero();
            if (m.precision().equals("int8")) {
                assertThat(quantisers).as(m.id()).isPositive();
                Map<String, Integer> ops =
                        OnnxGraph.read(new ByteArrayInputStream(result.model())).opCounts();
                assertThat(ops).doesNotContainKey("DynamicQuantizeLinear");
                assertThat(ops.get("ReduceMax")).isEqualTo(quantisers);
                assertThat(ops.get("QuantizeLinear")).isEqualTo(quantisers);
            } else {
                assertThat(result.model()).isSameAs(onnx);
            }
        }
    }

    /** What DynamicQuantizeLinear → MatMulInteger → scale computes for one row given alone. */
    private static float[] perRowReference(float[] x) {
        float lo = 0f;
        float hi = 0f;
        for (float v : x) {
            lo = Math.min(lo, v);
            hi = Math.max(hi, v);
        }
        float codeMax = PerRowQuantization.CODE_MAX;
        float scale = Math.max((hi - lo) / codeMax, Float.MIN_NORMAL);
        float zeroPoint = (float) Math.rint(Math.min(codeMax, Math.max(0f, -lo / scale)));
        int[] q = new int[K];
        for (int k = 0; k < K; k++) {
            float code = (float) Math.rint(x[k] / scale) + zeroPoint;
            q[k] = (int) Math.min(255f, Math.max(0f, code)); // QuantizeLinear saturates to uint8
            // never past 128, where a pair of products could saturate an AVX2 int16 sum
            assertThat(q[k]).isLessThanOrEqualTo(128);
        }
        float[] y = new float[N];
        for (int n = 0; n < N; n++) {
            int acc = 0;
            for (int k = 0; k < K; k++) {
                acc += (q[k] - (int) zeroPoint) * (W[k * N + n] - W_ZERO_POINT[n]);
            }
            y[n] = (float) acc * (scale * W_SCALE[n]);
        }
        return y;
    }

    private static float maxDifference(float[] a, float[] b) {
        float max = 0;
        for (int i = 0; i < a.length; i++) {
            max = Math.max(max, Math.abs(a[i] - b[i]));
        }
        return max;
    }

    private static float[][] run(byte[] model, float[][] rows) throws OrtException {
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        FloatBuffer input = FloatBuffer.allocate(rows.length * K);
        for (float[] row : rows) {
            input.put(row);
        }
        input.flip();
        try (OrtSession session = env.createSession(model, new OrtSession.SessionOptions());
                OnnxTensor x = OnnxTensor.createTensor(env, input, new long[] {rows.length, K});
                OrtSession.Result result = session.run(Map.of("x", x))) {
            return (float[][]) result.get(0).getValue();
        }
    }

    /**
     * x [rows, 4] → DynamicQuantizeLinear → MatMulInteger with int8 weights [4, 5] and a zero point
     * per column → Cast → Mul by (scale × weight scale): the layout ONNX Runtime's dynamic
     * quantiser writes. With {@code codesAlsoCast}, the codes also feed a Cast to a second output.
     */
    static byte[] tinyModel(boolean codesAlsoCast) {
        byte[] toFloat = OnnxWriter.intAttribute("to", OnnxWriter.FLOAT);
        List<byte[]> nodes =
                new java.util.ArrayList<>(
                        List.of(
                                node("DynamicQuantizeLinear", List.of("x"), List.of("q", "s", "z")),
                                node(
                                        "MatMulInteger",
                                        List.of("q", "W", "z", "W_zero_point"),
                                        List.of("y_int")),
                                node("Cast", List.of("y_int"), List.of("y_float"), toFloat),
                                node("Mul", List.of("s", "W_scale"), List.of("s_w")),
                                node("Mul", List.of("y_float", "s_w"), List.of("y"))));
        if (codesAlsoCast) {
            nodes.add(node("Cast", List.of("q"), List.of("q_float"), toFloat));
        }
        byte[] graph =
                ProtoMessage.write(
                        w -> {
                            for (byte[] n : nodes) {
                                w.writeByteArray(OnnxWriter.GRAPH_NODE, n);
                            }
                            w.writeByteArray(
                                    OnnxWriter.GRAPH_INITIALIZER,
                                    OnnxWriter.tensor("W", OnnxWriter.INT8, W, K, N));
                            w.writeByteArray(
                                    OnnxWriter.GRAPH_INITIALIZER,
                                    OnnxWriter.tensor(
                                            "W_zero_point", OnnxWriter.INT8, W_ZERO_POINT, N));
                            w.writeByteArray(
                                    OnnxWriter.GRAPH_INITIALIZER,
                                    OnnxWriter.floatVector("W_scale", W_SCALE));
                            w.writeByteArray(
                                    OnnxWriter.GRAPH_INPUT,
                                    OnnxWriter.valueInfo("x", OnnxWriter.FLOAT, "rows", K));
                            w.writeByteArray(
                                    OnnxWriter.GRAPH_OUTPUT,
                                    OnnxWriter.valueInfo("y", OnnxWriter.FLOAT, "rows", N));
                            if (codesAlsoCast) {
                                w.writeByteArray(
                                        OnnxWriter.GRAPH_OUTPUT,
                                        OnnxWriter.valueInfo(
                                                "q_float", OnnxWriter.FLOAT, "rows", K));
                            }
                        });
        return OnnxWriter.model(6, "per-row-quantization-test", graph, 11);
    }

    private static byte[] node(
            String op, List<String> in, List<String> outputs, byte[]... attributes) {
        return OnnxWriter.node(op + "_" + outputs.get(0), op, in, outputs, attributes);
    }
}
