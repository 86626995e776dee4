package io.zerolayer.operators.compiler;

import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.gpu.EncoderModel;
import io.zerolayer.operators.contracts.TaskContracts;
import io.zerolayer.operators.heads.TaskHeads;
import io.zerolayer.operators.quality.QualityFloor;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A classify task with labelled examples compiles to a plan with a head node: the head fit on the
 * chosen tier's vectors, its weights' hash and examples in the plan (so in the graph id), and the
 * tier chosen by every tier's cross-validated accuracy instead of the shipped profile. The tiers'
 * vectors here are made up so that one family separates the examples and the other does not; the
 * real encoders' path is {@code ClassifierHeadsTest}'s.
 */
class CompiledHeadsTest {
    private static final GraphIdentity IDENTITY =
            new GraphIdentity(
                    "tasks-1",
                    "zlc-1",
                    "onnxruntime-test",
                    "cpu-generic",
                    new TreeMap<>(Map.of("minilm-l6-v2-fp32", "aa")));

    private static final List<String> LABELS = List.of("refund", "outage", "login");

    /** A contract with {@code perLabel} examples per label, each text naming its label. */
    private static TaskContracts contracts(int perLabel, String extra) {
        StringBuilder yaml =
                new StringBuilder(TaskContracts.builtIn().source().stripTrailing())
                        .append("\n  routing:\n    decoder: classify\n    requires: [ticket]\n")
                        .append("    allows: [ticket]\n")
                        .append(extra)
                        .append("    examples:\n");
        for (String label : LABELS) {
            yaml.append("      ").append(label).append(":\n");
            for (int i = 0; i < perLabel; i++) {
                yaml.append("        - ").append(label).append(" ticket ").append(i).append('\n');
            }
        }
        return TaskContracts.parse(yaml.toString());
    }

    /**
     * Vectors that put a text near its label's direction: cleanly for BGE, drowned in noise for
     * MiniLM, so BGE's heads are measured far better.
     */
    static float[][] features(EncoderModel model, List<String> texts) {
        double noise = model.family().startsWith("bge") ? 0.02 : 3.0;
        float[][] out = new float[texts.size()][model.hiddenSize()];
        for (int t = 0; t < texts.size(); t++) {
            String text = texts.get(t);
            Random random = new Random(text.hashCode() * 31L + model.id().hashCode());
            int label = LABELS.indexOf(text.split(" ")[0]);
            for (int k = 0; k < out[t].length; k++) {
                out[t][k] =
                        (float)
                                ((label >= 0 && k % LABELS.size() == label ? 0.1 : 0)
                                        + noise * 0.1 * random.nextGaussian());
            }
        }
        return out;
    }

    private static GraphCompiler compiler(TaskContracts contracts) {
        return new GraphCompiler(
                IDENTITY,
                CostEstimator.nominal(),
                TestQualityProfiles.SHIPPED_LIKE,
                TaskHeads.of(contracts, CompiledHeadsTest::features));
    }

    private static ExecutionPlan routing(GraphCompiler compiler) {
        return compiler.compile(
                new PlanShape("routing", "classify", "json", 6, 0, QualityFloor.BALANCED, false));
    }

    @Test
    void theHeadIsANodeOfThePlanAndItsTierIsTheOneItsExamplesMeasureBest() {
        ExecutionPlan plan = routing(compiler(contracts(6, "")));
        assertThat(plan.nodes())
                .extracting(PlanNode::kind)
                .containsSubsequence("pool", "head", "decode");
        PlanNode head = plan.node("head");
        assertThat(head.params())
                .containsEntry("labels", "refund, outage, login")
                .containsEntry("examples", "18")
                .containsEntry("weights.sha256", plan.head().sha256())
                .containsKey("cv.accuracy");
        assertThat(plan.node("decode").inputs()).containsExactly("head");
        // BGE's vectors separate the examples, MiniLM's do not: the compiler says so and why
        EncoderModel tier = EncoderModel.byId(plan.node("encode").model());
        assertThat(tier.family()).startsWith("bge");
        assertThat(head.params().get("tier")).isEqualTo(tier.id());
        String candidates = plan.node("encode").params().get("tier.candidates");
        assertThat(candidates).contains("minilm-l6-v2-int8 quality=").contains("lost: below");
        assertThat(plan.node("encode").params().get("reason"))
                .contains("cross-validated heads on 18 examples");
        // the fallback tier has a head of its own, fit on its own vectors
        assertThat(plan.fallbackHead()).isNotNull();
        assertThat(plan.fallbackNodes()).extracting(PlanNode::kind).contains("head");
    }

    @Test
    void otherExamplesOrAnotherBarMakeAnotherGraph() {
        String id = routing(compiler(contracts(6, ""))).graphId();
        assertThat(routing(compiler(contracts(6, ""))).graphId())
                .as("the same examples fit the same head")
                .isEqualTo(id);
        assertThat(routing(compiler(contracts(7, ""))).graphId()).isNotEqualTo(id);
        assertThat(routing(compiler(contracts(6, "    min-probability: 0.5\n"))).graphId())
                .isNotEqualTo(id);
    }

    @Test
    void aCompilerWithoutHeadsAndATaskWithoutExamplesClassifyZeroShot() {
        GraphCompiler zeroShot =
                new GraphCompiler(
                        IDENTITY, CostEstimator.nominal(), TestQualityProfiles.SHIPPED_LIKE);
        ExecutionPlan plan = routing(zeroShot);
        assertThat(plan.head()).isNull();
        assertThat(plan.nodes()).extracting(PlanNode::kind).doesNotContain("head");
        ExecutionPlan triage =
                compiler(contracts(6, ""))
                        .compile(
                                new PlanShape(
                                        "triage",
                                        "classify",
                                        "json",
                                        6,
                                        4,
                                        QualityFloor.BALANCED,
                                        false));
        assertThat(triage.head()).isNull();
    }
}
