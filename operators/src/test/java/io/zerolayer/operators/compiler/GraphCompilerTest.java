package io.zerolayer.operators.compiler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zerolayer.gpu.EncoderModel;
import io.zerolayer.operators.structure.StructureClassifier;
import io.zerolayer.schemas.ExecutionGraph;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class GraphCompilerTest {
    private static final GraphIdentity IDENTITY =
            new GraphIdentity(
                    "tasks-1",
                    "zlc-1",
                    "onnxruntime-test",
                    "cpu-generic",
                    new TreeMap<>(Map.of("minilm-l6-v2-fp32", "aa", "minilm-l6-v2-int8", "bb")));
    private final StructureClassifier classifier = new StructureClassifier();
    private final GraphCompiler compiler = new GraphCompiler(IDENTITY);

    @Test
    void compilesOneChunkNodePerSectionBetweenTokenizeAndEncode() {
        ExecutionPlan plan =
                compiler.compile(
                        classifier.classify(
                                "<task:summarize><paper>Title."
                                    + "<section:abstract>A.</section><section:results>B.</section></paper>"));
        assertThat(plan.nodes())
                .extracting(PlanNode::nodeId)
                .containsExactly(
                        "tokenize",
                        "chunk/body",
                        "chunk/section:abstract",
                        "chunk/section:results",
                        "encode",
                        "pool",
                        "decode/summarize");
        assertThat(plan.node("encode").inputs())
                .containsExactly("chunk/body", "chunk/section:abstract", "chunk/section:results");
        assertThat(plan.nodes("chunk"))
                .allSatisfy(n -> assertThat(n.params()).containsEntry("strategy", "sentences"));
    }

    @Test
    void choosesTheModelPerTaskAndDocumentSize() {
        String longDoc = "Sentence about results. ".repeat(200);
        assertThat(
                        compiler.compile(classifier.classify("<task:summarize>" + longDoc))
                                .node("encode")
                                .model())
                .isEqualTo(EncoderModel.MINILM_L6_V2_INT8.id());
        assertThat(
                        compiler.compile(classifier.classify("<task:summarize>short"))
                                .node("encode")
                                .model())
                .isEqualTo(EncoderModel.MINILM_L6_V2_FP32.id());
        assertThat(
                        compiler.compile(classifier.classify("<task:embed>" + longDoc))
                                .node("encode")
                                .model())
                .isEqualTo(EncoderModel.MINILM_L6_V2_FP32.id());
        assertThat(
                        compiler.compile(
                                        classifier.classify(
                                                "<task:answer><question>q?</question>" + longDoc))
                                .node("decode")
                                .params())
                .containsEntry("decoder", "answer");
        // a task added in tasks.yaml alone compiles to its decoder
        assertThat(
                        compiler.compile(
                                        classifier.classify(
                                                "<task:triage><output_format:json><labels>a,"
                                                        + " b</labels><ticket>help</ticket>"))
                                .nodes())
                .extracting(PlanNode::nodeId)
                .contains("decode/triage");
    }

    @Test
    void graphIdDependsOnStructureAndEveryIdentityPart() {
        var prompt = classifier.classify("<task:embed>some text");
        String id = compiler.graphId(prompt);
        assertThat(id).hasSize(64).matches("[0-9a-f]+");
        assertThat(compiler.graphId(classifier.classify("<task:embed>other words"))).isEqualTo(id);
        assertThat(compiler.graphId(classifier.classify("<task:summarize>some text")))
                .isNotEqualTo(id);
        assertThat(
                        new GraphIdentity(
                                        "tasks-2",
                                        "zlc-1",
                                        "onnxruntime-test",
                                        "cpu-generic",
                                        IDENTITY.modelChecksums())
                                .graphId(prompt.signature()))
                .isNotEqualTo(id);
        assertThat(
                        new GraphIdentity(
                                        "tasks-1",
                                        "zlc-1",
                                        "onnxruntime-test",
                                        "nvidia-h100-sxm",
                                        IDENTITY.modelChecksums())
                                .graphId(prompt.signature()))
                .isNotEqualTo(id);
        assertThat(
                        new GraphIdentity(
                                        "tasks-1",
                                        "zlc-1",
                                        "onnxruntime-test",
                                        "cpu-generic",
                                        new TreeMap<>(
                                                Map.of(
                                                        "minilm-l6-v2-fp32",
                                                        "aa",
                                                        "minilm-l6-v2-int8",
                                                        "cc")))
                                .graphId(prompt.signature()))
                .isNotEqualTo(id);
    }

    @Test
    void descriptorCarriesTheIdentityAndNodes() {
        ExecutionPlan plan =
                compiler.compile(classifier.classify("<task:embed><output_format:json>text"));
        ExecutionGraph g = plan.toDescriptor(Instant.EPOCH);
        assertThat(g.getGraphId()).isEqualTo(plan.graphId());
        assertThat(g.getHardwareProfile()).isEqualTo("cpu-generic");
        assertThat(g.getNodes()).hasSize(plan.nodes().size());
        assertThat(g.getOutputFormat()).isEqualTo("json");
    }

    @Test
    void refusesPromptsWithErrors() {
        assertThatThrownBy(() -> compiler.compile(classifier.classify("no task")))
                .hasMessageContaining("ZL001");
    }

    @Test
    void everyChoiceIsRecordedWithItsReasonAndAnEstimateForTheHardware() {
        io.zerolayer.gpu.hardware.HardwareProfiles profiles =
                io.zerolayer.gpu.hardware.HardwareProfiles.builtIn();
        io.zerolayer.gpu.hardware.DeviceReport cpu =
                io.zerolayer.gpu.hardware.DeviceReport.cpu(
                        "test", 2, 2.0, 8L << 30, java.util.Set.of("avx2", "fma"));
        GraphCompiler estimating =
                new GraphCompiler(
                        IDENTITY,
                        new CostEstimator(profiles.get("cpu-avx2").orElseThrow(), cpu, 0));
        String longDoc = "Sentence about results. ".repeat(200); // 4800 chars: size bucket 6
        PlanNode encode =
                estimating
                        .compile(classifier.classify("<task:summarize>" + longDoc))
                        .node("encode");
        assertThat(encode.params().get("reason")).contains("size bucket 6").contains("int8");
        // bucket 6 is taken at its middle, 6144 chars ≈ 1536 tokens ≈ 62 sentences, padded to 52
        // tokens
        assertThat(encode.params())
                .containsEntry("estimate.tokens", "1536")
                .containsEntry("estimate.sequences", "62")
                .containsEntry("estimate.hardware", "cpu-avx2");
        long flops = Long.parseLong(encode.params().get("estimate.flops"));
        assertThat(flops).isEqualTo(io.zerolayer.gpu.EncoderModel.forwardFlops(62, 52));
        // cpu-avx2 int8 peak: 64 FLOP/cycle/core × 2 cores × 2 GHz = 256 GFLOP/s
        long micros = Long.parseLong(encode.params().get("estimate.micros"));
        assertThat(micros)
                .isEqualTo(
                        Math.round(
                                flops / 256e9 * 1e6
                                        + profiles.get("cpu-avx2")
                                                .orElseThrow()
                                                .launchOverheadMicros()));
        assertThat(encode.params()).containsEntry("estimate.bound", "compute");
        assertThat(
                        estimating
                                .compile(
                                        classifier.classify(
                                                "<task:answer><question>q?</question>" + longDoc))
                                .node("encode")
                                .params()
                                .get("reason"))
                .contains("fp32 keeps their fidelity");
        // without an estimator (the router's compiler) a plan has reasons but no estimates
        assertThat(compiler.compile(classifier.classify("<task:embed> x")).node("encode").params())
                .containsKey("reason")
                .doesNotContainKey("estimate.flops");
    }
}
