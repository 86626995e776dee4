package io.zerolayer.operators.compiler;

import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.gpu.EncoderModel;
import io.zerolayer.operators.quality.QualityFloor;
import io.zerolayer.operators.quality.QualityProfile;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The tier choice by floor, compliance and device, from a profile whose figures the test sets. */
class TierChoiceTest {
    private static final List<EncoderModel> CATALOG =
            List.of(
                    EncoderModel.MINILM_L6_V2_FP32,
                    EncoderModel.MINILM_L6_V2_INT8,
                    EncoderModel.BGE_SMALL_EN_V15_FP32,
                    EncoderModel.BGE_SMALL_EN_V15_INT8);

    /** Estimated encode time of one request, µs: bge twice MiniLM, int8 half of fp32. */
    private static final Map<EncoderModel, Double> MICROS =
            Map.of(
                    EncoderModel.MINILM_L6_V2_FP32, 20_000.0,
                    EncoderModel.MINILM_L6_V2_INT8, 10_000.0,
                    EncoderModel.BGE_SMALL_EN_V15_FP32, 40_000.0,
                    EncoderModel.BGE_SMALL_EN_V15_INT8, 20_500.0);

    /** A profile where each tier's classify accuracy is {@code accuracy[i]} (catalog order). */
    private static QualityProfile profile(double... accuracy) {
        StringBuilder yaml = new StringBuilder("tiers:\n");
        for (int i = 0; i < CATALOG.size(); i++) {
            EncoderModel m = CATALOG.get(i);
            yaml.append("  ")
                    .append(m.id())
                    .append(":\n    sha256: ")
                    .append(Double.isNaN(accuracy[i]) ? "other-weights" : m.sha256())
                    .append("\n    scores:\n      corpus.accuracy: {value: ")
                    .append(Double.isNaN(accuracy[i]) ? 0 : accuracy[i])
                    .append("}\n");
        }
        return QualityProfile.parse(yaml.toString(), "test profile");
    }

    private static TierChoice choose(
            QualityProfile p, QualityFloor floor, boolean exact, boolean onGpu) {
        return TierChoice.choose(CATALOG, p, "classify", floor, exact, onGpu, MICROS::get);
    }

    private static String verdict(TierChoice c, EncoderModel m) {
        return c.candidates().stream()
                .filter(x -> x.model().equals(m))
                .findFirst()
                .orElseThrow()
                .verdict();
    }

    @Test
    void eachFloorTakesTheCheapestTierItAllows() {
        QualityProfile p = profile(0.85, 0.845, 0.90, 0.895);
        assertThat(choose(p, QualityFloor.FAST, false, false).chosen())
                .isEqualTo(EncoderModel.MINILM_L6_V2_INT8);
        TierChoice balanced = choose(p, QualityFloor.BALANCED, false, false);
        assertThat(balanced.chosen()).isEqualTo(EncoderModel.BGE_SMALL_EN_V15_INT8);
        assertThat(verdict(balanced, EncoderModel.MINILM_L6_V2_INT8))
                .startsWith(
                        "lost: below the balanced floor (0.890: the best, 0.900, less one point)");
        assertThat(verdict(balanced, EncoderModel.BGE_SMALL_EN_V15_FP32))
                .isEqualTo("lost: 19.5 ms dearer");
        assertThat(balanced.reason())
                .contains("bge-small-en-v1.5-int8")
                .contains("quality 0.895, best 0.900")
                .contains("test profile");
        assertThat(balanced.describeCandidates())
                .contains("minilm-l6-v2-int8 quality=0.845 est=10.0ms: lost: below");
        assertThat(choose(p, QualityFloor.BEST, false, false).chosen())
                .isEqualTo(EncoderModel.BGE_SMALL_EN_V15_FP32);
    }

    @Test
    void complianceLevel3TakesAQuantisedTierOnlyWhereItLosesNothing() {
        TierChoice lossy =
                choose(profile(0.85, 0.845, 0.90, 0.895), QualityFloor.BALANCED, true, false);
        assertThat(lossy.chosen()).isEqualTo(EncoderModel.BGE_SMALL_EN_V15_FP32);
        assertThat(verdict(lossy, EncoderModel.BGE_SMALL_EN_V15_INT8))
                .isEqualTo(
                        "excluded: quantised at compliance level 3, and the profile shows a loss"
                                + " (0.895 < fp32 0.900)");
        assertThat(
                        choose(profile(0.85, 0.845, 0.90, 0.90), QualityFloor.BALANCED, true, false)
                                .chosen())
                .isEqualTo(EncoderModel.BGE_SMALL_EN_V15_INT8);
    }

    @Test
    void aGpuRunsNoDynamicallyQuantisedTier() {
        TierChoice onGpu =
                choose(profile(0.85, 0.845, 0.90, 0.895), QualityFloor.FAST, false, true);
        assertThat(onGpu.chosen()).isEqualTo(EncoderModel.MINILM_L6_V2_FP32);
        assertThat(verdict(onGpu, EncoderModel.MINILM_L6_V2_INT8))
                .contains("DynamicQuantizeLinear");
    }

    @Test
    void tiersMeasuredWithOtherWeightsAreNotCandidatesAndANearTieGoesToTheBetter() {
        TierChoice c =
                choose(
                        profile(0.85, Double.NaN, 0.90, Double.NaN),
                        QualityFloor.FAST,
                        false,
                        false);
        assertThat(verdict(c, EncoderModel.MINILM_L6_V2_INT8))
                .isEqualTo(
                        "excluded: not measured for this task (zerolayer eval --tiers"
                                + " minilm-l6-v2-int8)");
        assertThat(c.chosen()).isEqualTo(EncoderModel.MINILM_L6_V2_FP32);
        // bge int8 (20.5 ms) within a millisecond of MiniLM fp32 (20 ms): the better one wins
        TierChoice tie =
                choose(
                        profile(0.85, Double.NaN, Double.NaN, 0.89),
                        QualityFloor.FAST,
                        false,
                        false);
        assertThat(tie.chosen()).isEqualTo(EncoderModel.BGE_SMALL_EN_V15_INT8);
        assertThat(verdict(tie, EncoderModel.MINILM_L6_V2_FP32))
                .isEqualTo("lost: as cheap, but not better");
        assertThat(
                        choose(
                                profile(Double.NaN, Double.NaN, Double.NaN, Double.NaN),
                                QualityFloor.FAST,
                                false,
                                false))
                .isNull();
    }
}
