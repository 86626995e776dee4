package io.zerolayer.operators.eval;

import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.gpu.EncoderModel;
import io.zerolayer.operators.costs.PriceSheet;
import io.zerolayer.operators.structure.StructureClassifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The evaluation over fixture corpora whose answers are plain: every tier must get them right, the
 * int8 tier must agree with its fp32, and the profile must say it all.
 */
class QualityEvalTest {
    @Test
    void plainAnswersAreRightAndTheProfileHoldsEveryFigure() throws Exception {
        List<String> progress = new ArrayList<>();
        QualityEval eval =
                new QualityEval(
                        new QualityEval.Settings(
                                List.of(
                                        EncoderModel.MINILM_L6_V2_FP32,
                                        EncoderModel.MINILM_L6_V2_INT8),
                                1,
                                0,
                                PriceSheet.builtIn(),
                                "cpu-generic"),
                        new StructureClassifier(),
                        progress::add);
        QualityEval.Report report = eval.run(new EvalCorpora(EvalCorporaTest.FIXTURES));
        assertThat(report.missing()).isEmpty();
        assertThat(report.corpora().keySet())
                .containsExactly(
                        "reuters-acq-crude", "reuters-grain", "fortunes-topics", "python-faq");
        QualityEval.TierResult int8 = report.tiers().get(1);
        Map<String, QualityEval.Score> scores = new java.util.HashMap<>();
        int8.scores().forEach(s -> scores.put(s.dataset() + "." + s.metric(), s));
        assertThat(scores.get("reuters-acq-crude.accuracy").figure().value()).isEqualTo(1.0);
        assertThat(scores.get("fortunes-topics.accuracy").figure().value())
                .isGreaterThanOrEqualTo(0.9);
        assertThat(scores.get("python-faq.top1").figure().value()).isEqualTo(1.0);
        assertThat(scores.get("python-faq.mrr").figure().value()).isEqualTo(1.0);
        assertThat(scores.get("reuters-grain.accuracy").figure().n()).isEqualTo(6);
        assertThat(scores.get("reuters-acq-crude.agreement").figure().value()).isBetween(0.95, 1.0);
        assertThat(scores.get("python-faq.top1").tokensPerSecond()).isPositive();
        assertThat(scores.get("python-faq.top1").nanoUsdPer1000()).isPositive();
        // the fp32 tier has no agreement of its own
        assertThat(report.tiers().get(0).scores()).noneMatch(s -> s.metric().equals("agreement"));
        assertThat(progress)
                .anyMatch(p -> p.contains("minilm-l6-v2-int8") && p.contains("python-faq"));

        String yaml =
                QualityProfiles.toYaml(
                        report,
                        "cpu-generic",
                        "2026-12-06",
                        "zerolayer eval",
                        Map.of("fortunes", "1:1.99.1-7.3"));
        Map<String, Object> parsed = new Yaml().load(yaml);
        assertThat(parsed).containsEntry("hardware-profile", "cpu-generic");
        assertThat(parsed).containsEntry("packages", Map.of("fortunes", "1:1.99.1-7.3"));
        @SuppressWarnings("unchecked")
        Map<String, Map<String, Object>> tiers =
                (Map<String, Map<String, Object>>) parsed.get("tiers");
        assertThat(tiers).containsOnlyKeys("minilm-l6-v2-fp32", "minilm-l6-v2-int8");
        @SuppressWarnings("unchecked")
        Map<String, Map<String, Object>> s =
                (Map<String, Map<String, Object>>) tiers.get("minilm-l6-v2-int8").get("scores");
        assertThat(s.get("python-faq.top1")).containsEntry("value", 1.0).containsEntry("n", 3);
        assertThat(QualityProfiles.table(report)).contains("reuters-grain · classify accuracy");
        // a profile pinned to one tier: the compiler finds no other measured
        io.zerolayer.operators.quality.QualityProfile pinned =
                io.zerolayer.operators.quality.QualityProfile.parse(
                        QualityProfiles.onlyTier(yaml, "minilm-l6-v2-int8"), "pinned");
        EncoderModel kept = EncoderModel.MINILM_L6_V2_INT8;
        EncoderModel dropped = EncoderModel.MINILM_L6_V2_FP32;
        assertThat(pinned.quality(kept.id(), kept.sha256(), "answer")).hasValue(1.0);
        assertThat(pinned.quality(dropped.id(), dropped.sha256(), "answer")).isEmpty();
    }
}
