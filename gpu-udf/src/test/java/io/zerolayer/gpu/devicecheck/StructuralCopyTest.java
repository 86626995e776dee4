package io.zerolayer.gpu.devicecheck;

import static org.assertj.core.api.Assertions.assertThat;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import io.zerolayer.gpu.EncoderModel;
import io.zerolayer.gpu.costmodel.OnnxGraph;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.LongBuffer;
import java.util.Map;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A tier's structural copy is the same graph as the real model, runs as one, and is small enough to
 * travel: what the device check times on a GPU stands for the shipped tier.
 */
class StructuralCopyTest {
    static java.util.List<EncoderModel> tiers() {
        return java.util.List.of(
                EncoderModel.MINILM_L6_V2_FP32, EncoderModel.BGE_SMALL_EN_V15_INT8);
    }

    @ParameterizedTest
    @MethodSource("tiers")
    void theCopyIsTheSameGraphRunsAsOneAndCompressesToAFewHundredKilobytes(EncoderModel m)
            throws Exception {
        byte[] real;
        try (InputStream in = m.openWeights()) {
            real = in.readAllBytes();
        }
        byte[] copy = StructuralCopy.zeroWeights(real);
        assertThat(copy).hasSameSizeAs(real).isNotEqualTo(real);
        OnnxGraph a = OnnxGraph.read(new ByteArrayInputStream(real));
        OnnxGraph b = OnnxGraph.read(new ByteArrayInputStream(copy));
        assertThat(b.nodes()).isEqualTo(a.nodes());
        assertThat(b.initializers().keySet()).isEqualTo(a.initializers().keySet());

        ByteArrayOutputStream packed = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(packed)) {
            gz.write(copy);
        }
        assertThat(packed.size()).as("gzipped").isLessThan(real.length / 20);

        // reshapes, masks and scales keep their values: the copy runs and gives the real shape
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        try (OrtSession session = env.createSession(copy, new OrtSession.SessionOptions())) {
            long[] shape = {2, 16};
            long[] ids = new long[32];
            java.util.Arrays.fill(ids, 2000);
            long[] mask = new long[32];
            java.util.Arrays.fill(mask, 1);
            try (OnnxTensor i = OnnxTensor.createTensor(env, LongBuffer.wrap(ids), shape);
                    OnnxTensor k = OnnxTensor.createTensor(env, LongBuffer.wrap(mask), shape);
                    OnnxTensor t =
                            OnnxTensor.createTensor(env, LongBuffer.wrap(new long[32]), shape)) {
                Map<String, OnnxTensor> inputs =
                        session.getInputNames().contains("token_type_ids")
                                ? Map.of("input_ids", i, "attention_mask", k, "token_type_ids", t)
                                : Map.of("input_ids", i, "attention_mask", k);
                try (OrtSession.Result r = session.run(inputs)) {
                    assertThat(((OnnxTensor) r.get(0)).getInfo().getShape())
                            .containsExactly(2, 16, m.hiddenSize());
                }
            }
        }
    }
}
