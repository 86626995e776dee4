package io.zerolayer.operators.compiler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zerolayer.gpu.EncoderModel;
import io.zerolayer.operators.structure.ClassifiedPrompt;
import io.zerolayer.operators.structure.StructureClassifier;
import io.zerolayer.schemas.ExecutionGraph;
import java.time.Instant;
import java.util.List;
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
    private final GraphCompiler compiler =
            new GraphCompiler(IDENTITY, CostEstimator.nominal(), TestQualityProfiles.SHIPPED_LIKE);

    @Test
    void compilesOneChunkNodeForEveryScopeBetweenTokenizeAndEncode() {
        ExecutionPlan plan =
                compiler.compile(
                        classifier.classify(
                                "<task:summarize><paper>Title."
                                    + "<section:abstract>A.</section><section:results>B.</section></paper>"));
        assertThat(plan.nodes())
                .extracting(PlanNode::nodeId)
                .containsExactly(
                        "tokenize",
                        "chunk",
                        "encode",
                        "pool",
                        "decode/summarize",
                        "redact",
                        "audit");
        assertThat(plan.node("encode").inputs()).containsExactly("chunk");
        assertThat(plan.node("chunk").params()).containsEntry("strategy", "sentences");
        assertThat(plan.nodes())
                .as("no section name is part of a plan")
                .allSatisfy(n -> assertThat(n.toString()).doesNotContain("abstract"));
    }

    /** A paper whose sections are named and sized as given, in one size bucket in all. */
    private static String paper(String... sections) {
        StringBuilder sb = new StringBuilder("<task:summarize><output_format:json><paper>");
        for (int i = 0; i < sections.length; i += 2) {
            sb.append("<section:")
                    .append(sections[i])
                    .append('>')
                    .append("Words of a section. ".repeat(Integer.parseInt(sections[i + 1]) / 20))
                    .append("</section>");
        }
        return sb.append("</paper>").toString();
    }

    @Test
    void structuresThatDifferInSectionNamesCountsAndRunSizesShareOnePlan() {
        // 900 + 1100 chars against 1100 + 900, other names, and three sections: three signatures,
        // one document size bucket (runs of buckets 3 and 4, taken at 768 and 1536 chars, or
        // three of bucket 3: 2304 chars, bucket 5)
        ClassifiedPrompt a = classifier.classify(paper("introduction", "900", "methods", "1100"));
        ClassifiedPrompt b = classifier.classify(paper("background", "1100", "approach", "900"));
        ClassifiedPrompt c =
                classifier.classify(paper("intro", "600", "setup", "700", "results", "700"));
        assertThat(java.util.Set.of(a.signature(), b.signature(), c.signature())).hasSize(3);
        assertThat(java.util.Set.of(compiler.structureId(a), compiler.structureId(b))).hasSize(2);

        assertThat(compiler.graphId(b)).isEqualTo(compiler.graphId(a));
        assertThat(compiler.graphId(c)).isEqualTo(compiler.graphId(a));
        assertThat(compiler.compile(b))
                .as("compiled once, kept by shape")
                .isSameAs(compiler.compile(a));
        assertThat(compiler.compile(a).shape())
                .isEqualTo("summarize→json doc~5 queries=0 quality=balanced");
    }

    @Test
    void whatChangesAPlanChangesItsGraphId() {
        String id = compiler.graphId(classifier.classify(paper("a", "1000", "b", "1000")));
        // the document's size bucket: 2000 → 8000 chars
        assertThat(compiler.graphId(classifier.classify(paper("a", "4000", "b", "4000"))))
                .isNotEqualTo(id);
        // the output format
        assertThat(
                        compiler.graphId(
                                classifier.classify(
                                        paper("a", "1000", "b", "1000")
                                                .replace(
                                                        "output_format:json",
                                                        "output_format:text"))))
                .isNotEqualTo(id);
        // the task
        assertThat(
                        compiler.graphId(
                                classifier.classify(
                                        paper("a", "1000", "b", "1000")
                                                .replace("task:summarize", "task:embed"))))
                .isNotEqualTo(id);
    }

    @Test
    void aPlanIsItsShapesWhateverStructureCompiledItFirst() {
        ClassifiedPrompt a = classifier.classify(paper("introduction", "900", "methods", "1100"));
        ClassifiedPrompt b = classifier.classify(paper("background", "1100", "approach", "900"));
        // two compilers, each seeing another structure of the shape first, emit the same plan
        ExecutionPlan first = new GraphCompiler(IDENTITY).compile(a);
        ExecutionPlan second = new GraphCompiler(IDENTITY).compile(b);
        assertThat(second).isEqualTo(first);
        assertThat(second.graphId())
                .isEqualTo(
                        IDENTITY.planId(
                                ExecutionPlan.canonicalForm(
                                        first.task(),
                                        first.outputFormat(),
                                        first.fidelity(),
                                        first.nodes(),
                                        first.fallbackNodes())));
    }

    @Test
    void aRequestsEstimateIsOfItsOwnWorkloadNotItsShapes() {
        GraphCompiler estimating =
                new GraphCompiler(
                        IDENTITY, estimator("cpu-avx2", false), TestQualityProfiles.SHIPPED_LIKE);
        // runs of buckets 3 + 2 (768 + 384 chars as estimated) and 3 + 3 (1536): one document
        // size bucket (4), one plan, two estimates
        ClassifiedPrompt smaller = classifier.classify(paper("a", "600", "b", "300"));
        ClassifiedPrompt larger = classifier.classify(paper("a", "600", "b", "600"));
        assertThat(estimating.graphId(larger)).isEqualTo(estimating.graphId(smaller));
        GraphCompiler.RequestEstimate small = estimating.estimate(CompilableStructure.of(smaller));
        GraphCompiler.RequestEstimate large = estimating.estimate(CompilableStructure.of(larger));
        assertThat(large.encoderTokens()).isGreaterThan(small.encoderTokens());
        assertThat(large.encodeMillisAlone()).isGreaterThanOrEqualTo(small.encodeMillisAlone());
    }

    @Test
    void choosesTheModelPerTaskAndDocumentSize() {
        String longDoc = "Sentence about results. ".repeat(200);
        assertThat(
                        compiler.compile(classifier.classify("<task:summarize>" + longDoc))
                                .node("encode")
                                .model())
                .isEqualTo(EncoderModel.MINILM_L6_V2_INT8.id());
        // embeddings of every size come from one tier: vectors of two models do not compare
        String shortEmbed =
                compiler.compile(classifier.classify("<task:embed>short")).node("encode").model();
        assertThat(
                        compiler.compile(classifier.classify("<task:embed>" + longDoc))
                                .node("encode")
                                .model())
                .isEqualTo(shortEmbed)
                .isEqualTo(EncoderModel.MINILM_L6_V2_INT8.id());
        assertThat(
                        compiler.compile(
                                        classifier.classify(
                                                "<task:answer><question>q?</question>" + longDoc))
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
    void graphIdDependsOnThePlanAndEveryIdentityPart() {
        var prompt = classifier.classify("<task:embed>some text");
        String id = compiler.graphId(prompt);
        assertThat(id).hasSize(64).matches("[0-9a-f]+");
        assertThat(compiler.graphId(classifier.classify("<task:embed>other words"))).isEqualTo(id);
        assertThat(compiler.graphId(classifier.classify("<task:summarize>some text")))
                .isNotEqualTo(id);
        for (GraphIdentity other :
                List.of(
                        new GraphIdentity(
                                "tasks-2",
                                "zlc-1",
                                "onnxruntime-test",
                                "cpu-generic",
                                IDENTITY.modelChecksums()),
                        new GraphIdentity(
                                "tasks-1",
                                "zlc-2",
                                "onnxruntime-test",
                                "cpu-generic",
                                IDENTITY.modelChecksums()),
                        new GraphIdentity(
                                "tasks-1",
                                "zlc-1",
                                "onnxruntime-test",
                                "nvidia-h100-sxm",
                                IDENTITY.modelChecksums()),
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
                                                "cc"))))) {
            assertThat(new GraphCompiler(other).graphId(prompt)).isNotEqualTo(id);
            assertThat(other.structureId(prompt.signature()))
                    .isNotEqualTo(IDENTITY.structureId(prompt.signature()));
        }
        assertThat(compiler.structureId(prompt))
                .as("a structure's id is not its graph's")
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

    private static final io.zerolayer.gpu.hardware.HardwareProfiles PROFILES =
            io.zerolayer.gpu.hardware.HardwareProfiles.builtIn();
    private static final io.zerolayer.gpu.hardware.DeviceReport TWO_CORE_AVX2 =
            io.zerolayer.gpu.hardware.DeviceReport.cpu(
                    "test", 2, 2.0, 8L << 30, java.util.Set.of("avx2", "fma"));
    private static final String TICKET =
            "<task:classify><labels>refund, delivery, account</labels><ticket>"
                    + "Where is my parcel? It has not come. ".repeat(6)
                    + "</ticket>";
    private static final String LONG_DOC =
            "Sentence about results. ".repeat(200); // 4800 chars: size bucket 6

    private static CostEstimator estimator(String profile, boolean cuda) {
        return new CostEstimator(PROFILES.get(profile).orElseThrow(), TWO_CORE_AVX2, 0, cuda);
    }

    /** A triage-like ticket: three labels (a 64-char bucket: 4 label sequences) and six lines. */
    private StructureWorkload ticketWorkload() {
        return GraphCompiler.workload(classifier.classify(TICKET));
    }

    @Test
    void everyChoiceIsRecordedWithItsReasonAndAnEstimateForTheHardware() {
        GraphCompiler estimating =
                new GraphCompiler(
                        IDENTITY, estimator("cpu-avx2", false), TestQualityProfiles.SHIPPED_LIKE);
        ClassifiedPrompt longDoc = classifier.classify("<task:summarize>" + LONG_DOC);
        ExecutionPlan plan = estimating.compile(longDoc);
        PlanNode encode = plan.node("encode");
        // bucket 6 is taken at its middle, 6144 chars ≈ 1536 tokens ≈ 62 sentences of 1 to 50
        // tokens; cut into runs as the executor cuts them, they pad to less than one run's 52
        assertThat(encode.params())
                .containsEntry("estimate.sequences", "62")
                .containsEntry("estimate.hardware", "cpu-avx2")
                .containsEntry("device", "cpu")
                .containsEntry("padding", "longest")
                .containsKeys("device.reason", "batch-size.reason", "padding.reason");
        int seqLen = Integer.parseInt(encode.params().get("estimate.seq-len"));
        assertThat(seqLen).isBetween(25 + 2, 50 + 2 - 1);
        long flops = Long.parseLong(encode.params().get("estimate.flops"));
        assertThat(flops)
                .isBetween(
                        EncoderModel.MINILM_L6_V2_FP32.forwardFlops(62, 25 + 2),
                        EncoderModel.MINILM_L6_V2_FP32.forwardFlops(62, 52));
        int runs = StructureWorkload.runs(GraphCompiler.workload(longDoc), 1).size();
        assertThat(runs).isGreaterThan(1);
        // int8 is within a point of the best tier for summaries and the cheapest: it runs, and
        // every tier is listed with its quality, estimate and verdict
        assertThat(encode.params().get("precision")).isEqualTo("int8");
        assertThat(encode.params().get("reason"))
                .startsWith(
                        "minilm-l6-v2-int8: the cheapest tier meeting the balanced floor for"
                                + " summarize (quality 0.801, best 0.810; test profile)");
        assertThat(encode.params().get("tier.candidates").split("\n"))
                .hasSize(EncoderModel.values().size())
                .anyMatch(
                        c ->
                                c.startsWith("minilm-l6-v2-int8 quality=0.801 est=")
                                        && c.endsWith(": chosen"))
                .anyMatch(
                        c ->
                                c.startsWith("minilm-l6-v2-fp32 quality=0.810")
                                        && c.contains("ms dearer"))
                .anyMatch(
                        c ->
                                c.startsWith("bge-small-en-v1.5-fp32 quality=0.780")
                                        && c.contains("lost: below the balanced floor (0.800"));
        assertThat(encode.params()).containsEntry("quality-floor", "balanced");
        // cpu-avx2 int8 peak: 64 FLOP/cycle/core × 2 cores × 2 GHz = 256 GFLOP/s
        long micros = Long.parseLong(encode.params().get("estimate.micros"));
        assertThat(micros)
                .isEqualTo(
                        Math.round(
                                flops / 256e9 * 1e6
                                        + runs
                                                * PROFILES.get("cpu-avx2")
                                                        .orElseThrow()
                                                        .launchOverheadMicros()));
        assertThat(encode.params()).containsEntry("estimate.bound", "compute");
        // every node carries an estimate; host nodes at the profile's rates: one text run, one
        // tokenize call
        assertThat(plan.nodes())
                .allSatisfy(n -> assertThat(n.params()).containsKey("estimate.micros"));
        assertThat(plan.node("tokenize").params())
                .containsEntry("estimate.tokens", "1536")
                .containsEntry(
                        "estimate.micros",
                        String.valueOf(
                                Math.round(
                                        PROFILES.get("cpu-avx2")
                                                        .orElseThrow()
                                                        .hostMicrosPerCall("tokenize")
                                                + 1536
                                                        * PROFILES.get("cpu-avx2")
                                                                .orElseThrow()
                                                                .hostMicrosPerToken("tokenize"))));
        assertThat(
                        estimating
                                .compile(
                                        classifier.classify(
                                                "<task:answer><question>q?</question>" + LONG_DOC))
                                .node("encode")
                                .params()
                                .get("reason"))
                .startsWith(
                        "minilm-l6-v2-fp32: the cheapest tier meeting the balanced floor for"
                                + " answer");
    }

    @Test
    void theFloorPicksTheTierAndTheFallbackRunsTheBestCheaperOne() {
        GraphCompiler estimating =
                new GraphCompiler(
                        IDENTITY, estimator("cpu-avx2", false), TestQualityProfiles.SHIPPED_LIKE);
        CompilableStructure answer =
                CompilableStructure.of(
                        classifier.classify("<task:answer><question>q?</question>" + LONG_DOC));
        ExecutionPlan balanced = estimating.compile(answer);
        assertThat(balanced.node("encode").model()).isEqualTo("minilm-l6-v2-fp32");
        // its fallback: of the cheaper tiers, the best for answers (MiniLM int8 0.794 over BGE
        // int8 0.77), and the reason says what the fallback costs in quality
        PlanNode fallback =
                balanced.fallbackNodes().stream()
                        .filter(n -> n.kind().equals("encode"))
                        .findFirst()
                        .orElseThrow();
        assertThat(fallback.model()).isEqualTo("minilm-l6-v2-int8");
        assertThat(fallback.params().get("reason"))
                .contains("the best cheaper tier")
                .contains("quality 0.794 against the main path's 0.810");
        ExecutionPlan fast =
                estimating.compile(
                        answer.withTier(io.zerolayer.operators.quality.QualityFloor.FAST, false));
        assertThat(fast.node("encode").model()).isEqualTo("minilm-l6-v2-int8");
        assertThat(fast.graphId()).isNotEqualTo(balanced.graphId());
        assertThat(fast.shape()).endsWith("quality=fast");
        CompilableStructure summary =
                CompilableStructure.of(classifier.classify("<task:summarize>" + LONG_DOC));
        assertThat(estimating.compile(summary).node("encode").model())
                .isEqualTo("minilm-l6-v2-int8");
        assertThat(
                        estimating
                                .compile(
                                        summary.withTier(
                                                io.zerolayer.operators.quality.QualityFloor.BEST,
                                                false))
                                .node("encode")
                                .model())
                .isEqualTo("minilm-l6-v2-fp32");
        // compliance level 3: int8 shows a loss for summaries (0.801 < 0.810), so fp32
        ExecutionPlan exact = estimating.compile(summary.withTier(null, true));
        assertThat(exact.node("encode").model()).isEqualTo("minilm-l6-v2-fp32");
        assertThat(exact.node("encode").params().get("tier.candidates"))
                .contains("excluded: quantised at compliance level 3");
        assertThat(exact.shape()).endsWith("quality=balanced exact");
    }

    @Test
    void labelsAndQuestionsAreEncodedWithTheDocument() {
        GraphCompiler estimating =
                new GraphCompiler(
                        IDENTITY, estimator("cpu-avx2", false), TestQualityProfiles.SHIPPED_LIKE);
        String doc =
                "Sentence about results. ".repeat(20); // 480 chars: bucket 2, 384 ≈ 4 sentences
        PlanNode plain =
                estimating.compile(classifier.classify("<task:summarize>" + doc)).node("encode");
        PlanNode labelled =
                estimating
                        .compile(
                                classifier.classify(
                                        "<task:classify><labels>refund, delivery, praise</labels>"
                                                + doc))
                        .node("encode");
        // a <labels> text of bucket 0 (64 chars) is taken as 4 labels of 16 chars
        assertThat(Integer.parseInt(labelled.params().get("estimate.sequences")))
                .isEqualTo(Integer.parseInt(plain.params().get("estimate.sequences")) + 4);
    }

    @Test
    void aGpuProfileCompilesForCudaOnlyWhereOnnxRuntimeHasTheProvider() {
        ExecutionPlan onCuda =
                new GraphCompiler(
                                IDENTITY,
                                estimator("nvidia-a100-40gb", true),
                                TestQualityProfiles.SHIPPED_LIKE)
                        .compile(classifier.classify("<task:summarize>" + LONG_DOC));
        PlanNode encode = onCuda.node("encode");
        assertThat(encode.params())
                .containsEntry("device", "cuda")
                .containsEntry("precision", "fp32")
                .containsEntry("padding", "pow2");
        assertThat(encode.params().get("tier.candidates"))
                .contains("minilm-l6-v2-int8 quality=0.801")
                .contains("DynamicQuantizeLinear");
        assertThat(encode.params().get("reason")).startsWith("minilm-l6-v2-fp32:");
        // a short ticket is ~60 µs of fp32 on an A100 against 200 µs per run: batch many
        PlanNode ticket =
                new GraphCompiler(
                                IDENTITY,
                                estimator("nvidia-a100-40gb", true),
                                TestQualityProfiles.SHIPPED_LIKE)
                        .compile(classifier.classify("<task:summarize>Short ticket."))
                        .node("encode");
        assertThat(Integer.parseInt(ticket.params().get("batch-size"))).isGreaterThan(8);

        // 62 sentences: the CPU's O(n·d) centralities (0.12 ms) beat a launch and the copies
        assertThat(onCuda.node("decode").params()).containsEntry("similarity", "cpu");
        assertThat(onCuda.node("decode").params().get("similarity.reason"))
                .contains("62 sentences");
        // hundreds of sentences: one SGEMM plus its copies beats them; not in the fallback
        ExecutionPlan longer =
                new GraphCompiler(
                                IDENTITY,
                                estimator("nvidia-a100-40gb", true),
                                TestQualityProfiles.SHIPPED_LIKE)
                        .compile(classifier.classify("<task:summarize>" + LONG_DOC.repeat(8)));
        PlanNode decode = longer.node("decode");
        assertThat(decode.params()).containsEntry("similarity", "cublas");
        assertThat(longer.fallbackNodes())
                .filteredOn(n -> n.kind().equals("decode"))
                .allSatisfy(n -> assertThat(n.params()).containsEntry("similarity", "cpu"));
        assertThat(
                        new GraphCompiler(
                                        IDENTITY,
                                        estimator("nvidia-a100-40gb", true),
                                        TestQualityProfiles.SHIPPED_LIKE)
                                .compile(classifier.classify("<task:summarize>Short ticket."))
                                .node("decode")
                                .params())
                .containsEntry("similarity", "cpu"); // one sentence: not worth a launch

        PlanNode cpuOnly =
                new GraphCompiler(IDENTITY, estimator("nvidia-a100-40gb", false))
                        .compile(classifier.classify("<task:summarize>" + LONG_DOC))
                        .node("encode");
        assertThat(cpuOnly.params()).containsEntry("device", "cpu");
        assertThat(cpuOnly.params().get("device.reason")).contains("-Pgpu");
    }

    @Test
    void queueDelayIsWhatARequestTakesAlone() {
        CostEstimator cpu = estimator("cpu-avx2", false);
        GraphCompiler estimating = new GraphCompiler(IDENTITY, cpu);
        long shortDelay = 0;
        for (String prompt :
                java.util.List.of("<task:summarize>Short ticket.", "<task:summarize>" + LONG_DOC)) {
            ClassifiedPrompt c = classifier.classify(prompt);
            ExecutionPlan plan = estimating.compile(c);
            PlanNode encode = plan.node("encode");
            long delay = Long.parseLong(encode.params().get("queue-delay-ms"));
            // what the executor and the classifier read of it
            assertThat(plan.encodeMillisAlone()).isEqualTo(delay);
            assertThat(plan.batchSize())
                    .isEqualTo(Integer.parseInt(encode.params().get("batch-size")));
            EncoderModel model = EncoderModel.byId(encode.model());
            double aloneMillis = cpu.encode(model, GraphCompiler.workload(c), 1).micros() / 1e3;
            assertThat(delay).as(prompt).isEqualTo(Math.max(1, Math.round(aloneMillis)));
            assertThat(encode.params().get("queue-delay.reason")).contains("alone");
            if (shortDelay == 0) {
                shortDelay = delay;
            } else {
                // a longer document waits longer: the wait scales with the work it may share
                assertThat(delay).isGreaterThan(shortDelay);
            }
        }
    }

    @Test
    void batchSizeIsTheSmallestThatComesNearTheBestBatchWithinTheBudget() {
        CostEstimator cpu = estimator("cpu-avx2", false);
        GraphCompiler estimating = new GraphCompiler(IDENTITY, cpu);
        for (String prompt :
                java.util.List.of(
                        "<task:summarize>Short ticket.",
                        "<task:summarize>" + "Sentence about results. ".repeat(20),
                        TICKET,
                        "<task:summarize>" + LONG_DOC)) {
            ClassifiedPrompt c = classifier.classify(prompt);
            PlanNode encode = estimating.compile(c).node("encode");
            int batch = Integer.parseInt(encode.params().get("batch-size"));
            assertThat(batch).isBetween(1, CostEstimator.MAX_BATCH);
            assertThat(Integer.bitCount(batch)).isEqualTo(1);
            StructureWorkload w = GraphCompiler.workload(c);
            EncoderModel model = EncoderModel.byId(encode.model());
            double best =
                    cpu.encode(model, w, CostEstimator.MAX_BATCH).micros()
                            / CostEstimator.MAX_BATCH;
            double perRequest = cpu.encode(model, w, batch).micros() / batch;
            boolean nearBest = perRequest <= 1.05 * best;
            boolean budgetBound =
                    cpu.encode(model, w, 2 * batch).micros() > CostEstimator.BATCH_BUDGET_MICROS;
            assertThat(nearBest || budgetBound).as(prompt).isTrue();
            assertThat(cpu.encode(model, w, batch).micros())
                    .as(prompt)
                    .isLessThanOrEqualTo(
                            batch == 1 ? Double.MAX_VALUE : CostEstimator.BATCH_BUDGET_MICROS);
            if (batch > 1) {
                // and half the batch would not have been near enough
                assertThat(cpu.encode(model, w, batch / 2).micros() / (batch / 2))
                        .as(prompt)
                        .isGreaterThan(1.05 * best);
            }
        }
        PlanNode tiny =
                estimating
                        .compile(classifier.classify("<task:summarize>Short ticket."))
                        .node("encode");
        assertThat(Integer.parseInt(tiny.params().get("batch-size"))).isGreaterThan(1);
    }

    @Test
    void sortedBatchesOfManySentencesPadLessThanOneRun() {
        CostEstimator cpu = estimator("cpu-avx2", false);
        StructureWorkload ticket = ticketWorkload();
        EncoderModel fp32 = EncoderModel.byId("minilm-l6-v2-fp32");
        double alone = cpu.encode(fp32, ticket, 1).micros();
        double inSixtyFour = cpu.encode(fp32, ticket, 64).micros() / 64;
        // alone, a ticket's sentences share one or two runs padded to their longest; 64 tickets'
        // sentences sorted into runs pad hardly at all and share each run's fixed cost (measured
        // on a 2-core EPYC: a ticket alone costs 1.47x its share of a batch of 32)
        assertThat(inSixtyFour / alone).isBetween(0.5, 0.85);
        assertThat(cpu.encode(fp32, ticket, 64).seqLen())
                .isLessThan(cpu.encode(fp32, ticket, 1).seqLen());
    }

    @Test
    void theEstimateCutsRunsAsTheExecutorDoes() {
        StructureWorkload ticket = ticketWorkload();
        int[] lengths = ticket.contentLengths(1);
        assertThat(lengths).isSorted();
        // 64 chars of labels are taken as 4 labels of 4 tokens; the ticket's sentences average 25
        assertThat(lengths).startsWith(4, 4, 4, 4);
        int sentences = lengths.length - 4;
        double mean = java.util.Arrays.stream(lengths, 4, lengths.length).average().orElseThrow();
        assertThat(mean).isCloseTo(25, org.assertj.core.data.Offset.offset(1.0));
        for (int requests : new int[] {1, 8, 64}) {
            java.util.List<StructureWorkload.Run> runs = StructureWorkload.runs(ticket, requests);
            // every sequence once, at most 64 a run
            assertThat(runs.stream().mapToInt(StructureWorkload.Run::sequences).sum())
                    .isEqualTo(lengths.length * requests);
            assertThat(runs.stream().mapToInt(StructureWorkload.Run::sequences))
                    .allMatch(n -> n >= 1 && n <= 64);
            // the labels ride in runs of their own, not padded to a sentence
            assertThat(runs.get(0).paddedLength()).isEqualTo(4 + 2);
            // and the estimate's padded length is what those runs pad to
            long padded = runs.stream().mapToLong(StructureWorkload.Run::paddedTokens).sum();
            assertThat(
                            estimator("cpu-avx2", false)
                                    .encode(
                                            EncoderModel.byId("minilm-l6-v2-fp32"),
                                            ticket,
                                            requests)
                                    .seqLen())
                    .isEqualTo((int) Math.round((double) padded / (lengths.length * requests)));
        }
        assertThat(sentences).isPositive();
    }

    @Test
    void aBatchBeyondTheSimulatedSequencesIsEstimatedFromItsRequestsScaledUp() {
        CostEstimator cpu = estimator("cpu-avx2", false);
        StructureWorkload ticket = ticketWorkload();
        EncoderModel fp32 = EncoderModel.byId("minilm-l6-v2-fp32");
        int exact = CostEstimator.SIMULATED_SEQUENCES / ticket.sequences();
        CostEstimator.EncodeEstimate cut = cpu.encode(fp32, ticket, exact);
        CostEstimator.EncodeEstimate scaled = cpu.encode(fp32, ticket, 4 * exact);
        assertThat(scaled.sequences()).isEqualTo(4 * cut.sequences());
        assertThat(scaled.flops()).isEqualTo(4 * cut.flops());
        assertThat(scaled.micros() / 4)
                .isCloseTo(cut.micros(), org.assertj.core.data.Offset.offset(1.0));
    }

    @Test
    void aCompilerForNoSlotEstimatesForTheNominalCpu() {
        assertThat(compiler.compile(classifier.classify("<task:embed> x")).node("encode").params())
                .containsKey("reason")
                .containsEntry("estimate.hardware", "cpu-avx2");
    }
}
