package io.zerolayer.gpu.costmodel;

import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.gpu.EncoderModel;
import org.assertj.core.data.Percentage;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The cost model read from the shipped ONNX graphs, against the architecture's own count. */
class OnnxCostModelTest {
    @ParameterizedTest
    @EnumSource(EncoderModel.class)
    void theGraphHoldsSixLayersOfMiniLm(EncoderModel model) {
        OnnxCostModel cost = OnnxCostModel.of(model);
        // per layer: Q, K, V, O (384×384) and the feed-forward pair (384×1536, 1536×384)
        assertThat(cost.weightFlopsPerToken())
                .isEqualTo(6 * 2 * (4L * 384 * 384 + 2L * 384 * 1536));
        assertThat(cost.activationProducts()).isEqualTo(12); // scores and weighted sum, per layer
        assertThat(cost.hidden()).isEqualTo(384);
        assertThat(cost.forwardFlops(3, 128)).isEqualTo(EncoderModel.forwardFlops(3, 128));
    }

    @ParameterizedTest
    @EnumSource(EncoderModel.class)
    void weightBytesFollowThePrecision(EncoderModel model) {
        long bytes = OnnxCostModel.of(model).weightBytes();
        if (model == EncoderModel.MINILM_L6_V2_FP32) {
            // 22.7 M float parameters: the file is the weights plus a little graph
            assertThat(bytes).isCloseTo(model.weightBytes(), Percentage.withPercentage(1));
        } else {
            assertThat(bytes).isLessThan(EncoderModel.MINILM_L6_V2_FP32.weightBytes() / 3);
        }
    }
}
