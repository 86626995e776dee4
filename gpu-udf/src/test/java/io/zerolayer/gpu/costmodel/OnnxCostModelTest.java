package io.zerolayer.gpu.costmodel;

import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.gpu.EncoderModel;
import java.util.List;
import org.assertj.core.data.Percentage;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The cost model read from each shipped ONNX graph, against its catalog entry's shape. */
class OnnxCostModelTest {
    static List<EncoderModel> shipped() {
        return EncoderModel.values().stream().filter(EncoderModel::shipped).toList();
    }

    @ParameterizedTest
    @MethodSource("shipped")
    void theGraphHasTheShapeItsCatalogEntrySays(EncoderModel model) {
        OnnxCostModel cost = OnnxCostModel.of(model);
        long d = model.hiddenSize();
        // per layer: Q, K, V, O (d×d) and the feed-forward pair (d×ffn, ffn×d)
        assertThat(cost.weightFlopsPerToken())
                .isEqualTo(model.layers() * 2 * (4L * d * d + 2L * d * model.ffnSize()));
        // scores and weighted sum, per layer
        assertThat(cost.activationProducts()).isEqualTo(2 * model.layers());
        assertThat(cost.hidden()).isEqualTo(d);
        assertThat(cost.forwardFlops(3, 128)).isEqualTo(model.forwardFlops(3, 128));
    }

    @ParameterizedTest
    @MethodSource("shipped")
    void weightBytesFollowThePrecision(EncoderModel model) throws Exception {
        long bytes = OnnxCostModel.of(model).weightBytes();
        long file;
        try (var in = model.openWeights()) {
            file = in.transferTo(java.io.OutputStream.nullOutputStream());
        }
        if (model.precision().equals("fp32")) {
            // float parameters: the file is the weights plus a little graph
            assertThat(bytes).isCloseTo(file, Percentage.withPercentage(1));
        } else {
            EncoderModel fp32 = EncoderModel.byId(model.id().replace("-int8", "-fp32"));
            assertThat(bytes).isLessThan(OnnxCostModel.of(fp32).weightBytes() / 3);
        }
    }
}
