package io.zerolayer.operators.execution;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.zerolayer.operators.compiler.ExecutionPlan;
import io.zerolayer.operators.compiler.GraphCompiler;
import io.zerolayer.operators.compiler.GraphIdentity;
import io.zerolayer.operators.structure.ClassifiedPrompt;
import io.zerolayer.operators.structure.StructureClassifier;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Runs compiled graphs on the real encoders and checks results are derived from the text. */
class CompiledGraphTest {
    private static EncoderPool encoders;
    private static GraphCompiler compiler;
    private static final StructureClassifier CLASSIFIER = new StructureClassifier();
    private static final ObjectMapper JSON = new ObjectMapper();

    private static final String CONTRACT =
            "<contract><section:payment>The Buyer shall pay all invoices within thirty days of"
                + " receipt. Late payments accrue interest at two percent per"
                + " month.</section><section:termination>Either party may terminate this agreement"
                + " with ninety days written notice. Termination does not release the Buyer from"
                + " unpaid invoices.</section><section:liability>The Supplier's liability is"
                + " limited to the fees paid in the preceding twelve months. Neither party is"
                + " liable for indirect damages.</section></contract>";

    @BeforeAll
    static void open() {
        encoders = new EncoderPool(1);
        compiler = new GraphCompiler(GraphIdentity.current("tasks-test", "cpu-generic"));
    }

    @AfterAll
    static void close() {
        encoders.close();
    }

    private static GraphRun run(String prompt) {
        ClassifiedPrompt classified = CLASSIFIER.classify(prompt);
        assertThat(classified.diagnostics()).isEmpty();
        ExecutionPlan plan = compiler.compile(classified);
        return new CompiledGraph(plan, encoders).execute(classified.parsed());
    }

    @Test
    void answerReturnsThePassageThatAnswersTheQuestionWithItsOffsets() throws Exception {
        String prompt =
                "<task:answer><output_format:json><question>How much notice is needed to end the"
                        + " agreement?</question>"
                        + CONTRACT;
        GraphRun run = run(prompt);
        JsonNode answer = JSON.readTree(run.output());
        assertThat(answer.get("passage").asText()).contains("ninety days written notice");
        assertThat(answer.get("scope").asText()).isEqualTo("section:termination");
        assertThat(prompt.substring(answer.get("start").asInt(), answer.get("end").asInt()).strip())
                .isEqualTo(answer.get("passage").asText());
    }

    @Test
    void summaryPicksSentencesOfTheDocumentInDocumentOrder() throws Exception {
        String prompt = "<task:summarize sentences=\"2\"><output_format:json>" + CONTRACT;
        JsonNode summary = JSON.readTree(run(prompt).output());
        assertThat(summary.get("sentences")).hasSize(2);
        int previousStart = -1;
        for (JsonNode s : summary.get("sentences")) {
            assertThat(prompt).contains(s.get("text").asText());
            assertThat(s.get("start").asInt()).isGreaterThan(previousStart);
            previousStart = s.get("start").asInt();
        }
        assertThat(summary.get("candidates").asInt()).isEqualTo(6);
    }

    @Test
    void classificationRanksTheMatchingLabelFirst() throws Exception {
        String prompt =
                "<task:classify><output_format:json><labels>shipping delay, refund request,"
                    + " password reset</labels><ticket>I returned the headphones two weeks ago and"
                    + " still have not got my money back. Please give me a refund.</ticket>";
        JsonNode result = JSON.readTree(run(prompt).output());
        assertThat(result.get("label").asText()).isEqualTo("refund request");
        double total = 0;
        for (JsonNode s : result.get("scores")) {
            total += s.get("probability").asDouble();
        }
        assertThat(total).isCloseTo(1.0, org.assertj.core.data.Offset.offset(0.01));
    }

    @Test
    void contractClauseIsClassifiedByWhatItRegulates() throws Exception {
        String prompt =
                "<task:classify><output_format:json><labels>limitation of liability,"
                    + " confidentiality, payment terms, termination rights</labels><clause>Each"
                    + " party shall keep the other party's Confidential Information secret, use it"
                    + " only to perform this Agreement, and disclose it only to employees who need"
                    + " to know it. These obligations survive for five years after"
                    + " termination.</clause>";
        assertThat(JSON.readTree(run(prompt).output()).get("label").asText())
                .isEqualTo("confidentiality");
    }

    @Test
    void embeddingIsAUnitVectorAndEveryNodeIsAccountedFor() throws Exception {
        GraphRun run =
                run(
                        "<task:embed><output_format:json><note>Warm graphs avoid"
                                + " recompilation.</note>");
        JsonNode result = JSON.readTree(run.output());
        double norm = 0;
        for (JsonNode x : result.get("vector")) {
            norm += x.asDouble() * x.asDouble();
        }
        assertThat(norm).isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-3));
        assertThat(run.nodeRuns())
                .extracting(NodeRun::kind)
                .containsExactly("tokenize", "chunk", "encode", "pool", "decode");
        NodeRun encode = run.nodeRuns().get(2);
        assertThat(encode.flops()).isPositive();
        assertThat(encode.tokens()).isEqualTo(run.nodeRuns().get(1).tokens() + 2);
        assertThat(run.kernelNanos()).isPositive();
    }

    @Test
    void longSectionsAreCutIntoOverlappingWindows() {
        String words = String.join(" ", java.util.Collections.nCopies(300, "alpha beta"));
        ClassifiedPrompt p = CLASSIFIER.classify("<task:embed><section:a>" + words + "</section>");
        GraphRun run = new CompiledGraph(compiler.compile(p), encoders).execute(p.parsed());
        NodeRun chunk = run.nodeRuns().get(1);
        // 600 tokens, windows of 126 every 96 tokens: 0,96,...,480 → 6 windows
        assertThat(chunk.items()).isEqualTo(6);
        assertThat(chunk.tokens()).isGreaterThan(600L);
    }

    @Test
    void aGraphRunsEveryStructureOfItsShapeUnderItsOwnSectionNames() throws Exception {
        String text = "Heat moves through graphene quickly. ".repeat(3);
        ClassifiedPrompt a =
                CLASSIFIER.classify(
                        "<task:embed><output_format:json><section:methods>"
                                + text
                                + "</section><section:results>"
                                + text
                                + "</section>");
        ClassifiedPrompt b =
                CLASSIFIER.classify(
                        "<task:embed><output_format:json><section:approach>"
                                + text
                                + "</section><section:findings>"
                                + text
                                + "</section>");
        assertThat(b.signature()).isNotEqualTo(a.signature());
        assertThat(compiler.graphId(b)).isEqualTo(compiler.graphId(a));
        CompiledGraph graph = new CompiledGraph(compiler.compile(a), encoders);
        JsonNode embedded = JSON.readTree(graph.execute(b.parsed()).output());
        assertThat(embedded.get("scopes"))
                .extracting(n -> n.get("scope").asText())
                .containsExactly("section:approach", "section:findings");
    }

    @Test
    void extractFindsTheSentenceThatStatesEachField() throws Exception {
        String prompt =
                "<task:extract><output_format:json><fields>payment deadline, notice period for"
                        + " termination, liability cap</fields>"
                        + CONTRACT;
        JsonNode fields = JSON.readTree(run(prompt).output()).get("fields");
        assertThat(fields).hasSize(3);
        assertThat(fields.get(0).get("text").asText()).contains("within thirty days");
        assertThat(fields.get(1).get("text").asText()).contains("ninety days written notice");
        assertThat(fields.get(2).get("text").asText()).contains("limited to the fees paid");
        for (JsonNode f : fields) {
            assertThat(prompt.substring(f.get("start").asInt(), f.get("end").asInt()).strip())
                    .isEqualTo(f.get("text").asText());
        }
    }

    @Test
    void aMicroBatchAnswersEachRequestAsItWouldBeAnsweredAlone() throws Exception {
        String template = "<task:answer><output_format:json><question>%s</question>" + CONTRACT;
        List<String> questions =
                List.of(
                        "How much notice is needed to end the agreement?",
                        "When must invoices be paid?",
                        "What is the supplier liable for?");
        ClassifiedPrompt first = CLASSIFIER.classify(template.formatted(questions.get(0)));
        CompiledGraph graph = new CompiledGraph(compiler.compile(first), encoders);
        List<CompiledGraph.BatchInput> inputs = new java.util.ArrayList<>();
        for (String q : questions) {
            inputs.add(
                    CompiledGraph.BatchInput.of(
                            CLASSIFIER.classify(template.formatted(q)).parsed()));
        }
        // a request whose sections are blank has other scopes: it fails alone
        inputs.add(
                new CompiledGraph.BatchInput(
                        "x",
                        io.zerolayer.operators.structure.DocumentContent.of(
                                CLASSIFIER
                                        .classify(
                                                "<task:answer><output_format:json><question>q?</question><contract><section:payment>"
                                                    + " </section><section:termination>"
                                                    + " </section><section:liability>"
                                                    + " </section></contract>")
                                        .parsed())));
        // a request whose text cannot even be tokenized (here: none at all) fails alone too
        io.zerolayer.operators.structure.DocumentContent good =
                io.zerolayer.operators.structure.DocumentContent.of(first.parsed());
        java.util.Map<String, List<io.zerolayer.operators.structure.DocumentContent.TextRun>>
                textless = new java.util.LinkedHashMap<>();
        good.scopes()
                .forEach(
                        (scope, runs) ->
                                textless.put(
                                        scope,
                                        List.of(
                                                new io.zerolayer.operators.structure.DocumentContent
                                                        .TextRun(null, 0, 0))));
        inputs.add(
                new CompiledGraph.BatchInput(
                        "y",
                        new io.zerolayer.operators.structure.DocumentContent(
                                textless,
                                good.question(),
                                good.labels(),
                                good.fields(),
                                good.taskAttributes())));
        List<CompiledGraph.BatchOutcome> outcomes = graph.executeBatch(inputs);
        assertThat(outcomes).hasSize(questions.size() + 2);
        assertThat(outcomes.get(questions.size() + 1).error())
                .isInstanceOf(NullPointerException.class);
        assertThat(outcomes.subList(0, questions.size()))
                .allSatisfy(o -> assertThat(o.error()).isNull());
        int batchSequences = graph.lastBatchSequences();
        CompiledGraph.BatchTotals totals = graph.lastBatch();
        // the requests' shares of the batch's encode and pool time add up to it exactly
        for (String kind : List.of("encode", "pool")) {
            long sum =
                    outcomes.stream()
                            .filter(o -> o.run() != null)
                            .flatMap(o -> o.run().nodeRuns().stream())
                            .filter(r -> r.kind().equals(kind))
                            .mapToLong(NodeRun::durationNanos)
                            .sum();
            assertThat(sum)
                    .isEqualTo(kind.equals("encode") ? totals.encodeNanos() : totals.poolNanos());
        }
        // the batch's bill, computed once on its totals, is what its requests' bills add up to
        List<NodeRun> encodes =
                outcomes.stream()
                        .filter(o -> o.run() != null)
                        .flatMap(o -> o.run().nodeRuns().stream())
                        .filter(r -> r.kind().equals("encode"))
                        .toList();
        io.zerolayer.operators.costs.PriceSheet.Money batchBill =
                graph.prices()
                        .bill(
                                "cpu-generic",
                                encodes.get(0).model().endsWith("int8") ? "int8" : "fp32",
                                encodes.stream().mapToLong(NodeRun::flops).sum(),
                                encodes.stream().mapToLong(NodeRun::memoryBytes).sum(),
                                null,
                                totals.encodeNanos());
        assertThat(encodes.stream().mapToLong(r -> r.money().compute()).sum())
                .isEqualTo(batchBill.compute())
                .isPositive();
        assertThat(encodes.stream().mapToLong(r -> r.money().memory()).sum())
                .isEqualTo(batchBill.memory());
        assertThat(encodes).allSatisfy(r -> assertThat(r.batchItems()).isEqualTo(batchSequences));
        for (int i = 0; i < questions.size(); i++) {
            GraphRun batched = outcomes.get(i).run();
            GraphRun alone =
                    graph.execute(
                            CLASSIFIER.classify(template.formatted(questions.get(i))).parsed());
            // fp32 with masked padding: the same passage, the score within float noise
            JsonNode b = JSON.readTree(batched.output());
            JsonNode a = JSON.readTree(alone.output());
            assertThat(b.get("passage").asText()).isEqualTo(a.get("passage").asText());
            assertThat(b.get("score").asDouble())
                    .isCloseTo(
                            a.get("score").asDouble(), org.assertj.core.data.Offset.offset(1e-3));
            assertThat(batched.nodeRuns())
                    .extracting(NodeRun::nodeId)
                    .isEqualTo(alone.nodeRuns().stream().map(NodeRun::nodeId).toList());
            NodeRun encode =
                    batched.nodeRuns().stream()
                            .filter(r -> r.kind().equals("encode"))
                            .findFirst()
                            .orElseThrow();
            NodeRun encodeAlone =
                    alone.nodeRuns().stream()
                            .filter(r -> r.kind().equals("encode"))
                            .findFirst()
                            .orElseThrow();
            // the same sequences and tokens are billed to the request, batched or not
            assertThat(encode.items()).isEqualTo(encodeAlone.items());
            assertThat(encode.tokens()).isEqualTo(encodeAlone.tokens());
        }
        assertThat(outcomes.get(3).run()).isNull();
        assertThat(outcomes.get(3).error()).hasMessageContaining("no text to analyse");
        // three requests of 3 windows + 1 question each went through the encoder together
        assertThat(batchSequences)
                .isEqualTo(
                        outcomes.subList(0, 3).stream()
                                .mapToInt(
                                        o ->
                                                o.run().nodeRuns().stream()
                                                        .filter(r -> r.kind().equals("encode"))
                                                        .findFirst()
                                                        .orElseThrow()
                                                        .items())
                                .sum());
    }

    @Test
    void graphsOfOneEncoderRunInOnePassEachAnsweredAsAloneAndBilledExactly() throws Exception {
        ClassifiedPrompt answer =
                CLASSIFIER.classify(
                        "<task:answer><output_format:json><question>When must invoices be"
                                + " paid?</question>"
                                + CONTRACT);
        // extract searches passages as answer does: both plan the same tier
        ClassifiedPrompt classify =
                CLASSIFIER.classify(
                        "<task:extract><output_format:json><fields>payment terms, notice"
                                + " period</fields>"
                                + CONTRACT);
        CompiledGraph answering = new CompiledGraph(compiler.compile(answer), encoders);
        CompiledGraph classifying = new CompiledGraph(compiler.compile(classify), encoders);
        assertThat(answering.plan().graphId()).isNotEqualTo(classifying.plan().graphId());
        assertThat(answering.encoderGroup()).isEqualTo(classifying.encoderGroup());
        List<List<CompiledGraph.BatchOutcome>> together =
                CompiledGraph.executeTogether(
                        List.of(
                                new CompiledGraph.Part(
                                        answering,
                                        List.of(CompiledGraph.BatchInput.of(answer.parsed()))),
                                new CompiledGraph.Part(
                                        classifying,
                                        List.of(CompiledGraph.BatchInput.of(classify.parsed())))),
                        Long.MAX_VALUE,
                        SliceBoundary.NONE);
        CompiledGraph.BatchTotals pass = answering.lastBatch();
        assertThat(classifying.lastBatch()).isEqualTo(pass);
        GraphRun a = together.get(0).get(0).run();
        GraphRun c = together.get(1).get(0).run();
        NodeRun encodeA = node(a, "encode");
        NodeRun encodeC = node(c, "encode");
        // one pass: each request's encode record names the whole pass's sequences
        assertThat(encodeA.items() + encodeC.items()).isEqualTo(pass.sequences());
        assertThat(encodeA.batchItems()).isEqualTo(pass.sequences());
        assertThat(encodeC.batchItems()).isEqualTo(pass.sequences());
        assertThat(encodeA.durationNanos() + encodeC.durationNanos()).isEqualTo(pass.encodeNanos());
        assertThat(node(a, "pool").durationNanos() + node(c, "pool").durationNanos())
                .isEqualTo(pass.poolNanos());
        // the pass is billed once and split: the two bills add up to it to the nano-dollar
        io.zerolayer.operators.costs.PriceSheet.Money bill =
                answering
                        .prices()
                        .bill(
                                "cpu-generic",
                                encodeA.model().endsWith("int8") ? "int8" : "fp32",
                                encodeA.flops() + encodeC.flops(),
                                encodeA.memoryBytes() + encodeC.memoryBytes(),
                                null,
                                pass.encodeNanos());
        assertThat(encodeA.money().compute() + encodeC.money().compute())
                .isEqualTo(bill.compute())
                .isPositive();
        assertThat(encodeA.money().memory() + encodeC.money().memory()).isEqualTo(bill.memory());
        // each graph decoded its own request: the answers are those each gives alone
        GraphRun aloneA = answering.execute(answer.parsed());
        GraphRun aloneC = classifying.execute(classify.parsed());
        assertThat(JSON.readTree(a.output()).get("passage"))
                .isEqualTo(JSON.readTree(aloneA.output()).get("passage"));
        assertThat(JSON.readTree(c.output())).isEqualTo(JSON.readTree(aloneC.output()));
        assertThat(encodeA.items()).isEqualTo(node(aloneA, "encode").items());
        assertThat(encodeC.tokens()).isEqualTo(node(aloneC, "encode").tokens());
        assertThat(a.nodeRuns()).extracting(NodeRun::nodeId).contains("decode/answer");
        assertThat(c.nodeRuns()).extracting(NodeRun::nodeId).contains("decode/extract");
    }

    private static NodeRun node(GraphRun run, String kind) {
        return run.nodeRuns().stream().filter(r -> r.kind().equals(kind)).findFirst().orElseThrow();
    }

    @Test
    void aLongDocumentGivesTheSameAnswerWhenOtherBatchesRunBetweenItsSlices() {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 60; i++) {
            text.append("Clause ")
                    .append(i)
                    .append(" says the supplier delivers lot ")
                    .append(i * 7 % 13)
                    .append(" within ")
                    .append(10 + i)
                    .append(" days unless the buyer agrees otherwise in writing. ");
        }
        ClassifiedPrompt document =
                CLASSIFIER.classify(
                        "<task:summarize sentences=\"3\"><output_format:json><document"
                                + " format=\"text\">"
                                + text
                                + "</document>");
        ClassifiedPrompt ticket = CLASSIFIER.classify("<task:embed> where is my parcel?");
        CompiledGraph graph = new CompiledGraph(compiler.compile(document), encoders);
        CompiledGraph other = new CompiledGraph(compiler.compile(ticket), encoders);
        long sliceMicros = 5_000;
        List<CompiledGraph.BatchInput> input =
                List.of(CompiledGraph.BatchInput.of(document.parsed()));

        GraphRun alone =
                graph.executeBatch(input, Long.MAX_VALUE, new SliceBoundary(sliceMicros, () -> 0))
                        .get(0)
                        .run();
        int[] pauses = {0};
        GraphRun interleaved =
                graph.executeBatch(
                                input,
                                Long.MAX_VALUE,
                                new SliceBoundary(
                                        sliceMicros,
                                        () -> {
                                            pauses[0]++;
                                            assertThat(
                                                            other.executeBatch(
                                                                            List.of(
                                                                                    CompiledGraph
                                                                                            .BatchInput
                                                                                            .of(
                                                                                                    ticket
                                                                                                            .parsed())))
                                                                    .get(0)
                                                                    .error())
                                                    .isNull();
                                            return 1;
                                        }))
                        .get(0)
                        .run();
        assertThat(pauses[0]).as("slices of the document").isGreaterThan(2);
        assertThat(interleaved.output()).isEqualTo(alone.output());
        // the slices' bound is what cut it: unbounded, the document runs in fewer runs
        int[] unbounded = {0};
        graph.executeBatch(
                input,
                Long.MAX_VALUE,
                new SliceBoundary(
                        Long.MAX_VALUE,
                        () -> {
                            unbounded[0]++;
                            return 0;
                        }));
        assertThat(unbounded[0]).isLessThan(pauses[0]);
    }

    /** The embedding cache: hits are billed as a cache node, duplicates encoded once. */
    @org.junit.jupiter.api.Nested
    class WithTheEmbeddingCache {
        private final String prompt =
                "<task:answer><output_format:json><question>When must invoices be paid?</question>"
                        + CONTRACT;
        private final EmbeddingCache cache = new EmbeddingCache(8 << 20);
        private final CompiledGraph graph =
                new CompiledGraph(
                        compiler.compile(CLASSIFIER.classify(prompt)),
                        encoders,
                        io.zerolayer.operators.costs.PriceSheet.builtIn(),
                        cache);

        private CompiledGraph.BatchInput input(String tenant) {
            return CompiledGraph.BatchInput.of(
                    CLASSIFIER.classify(prompt).parsed(),
                    new CompiledGraph.RunMode(false, java.util.Set.of(), tenant));
        }

        private static NodeRun node(GraphRun run, String kind) {
            return run.nodeRuns().stream()
                    .filter(r -> r.kind().equals(kind))
                    .findFirst()
                    .orElse(null);
        }

        @Test
        void aRequestSeenBeforeIsAnsweredFromTheCacheAndBilledACacheNode() {
            GraphRun first = graph.executeBatch(List.of(input("acme"))).get(0).run();
            assertThat(node(first, "cache")).isNull();
            NodeRun encoded = node(first, "encode");
            assertThat(encoded).isNotNull();

            GraphRun again = graph.executeBatch(List.of(input("acme"))).get(0).run();
            assertThat(again.output()).isEqualTo(first.output());
            assertThat(node(again, "encode")).as("nothing left to encode").isNull();
            assertThat(node(again, "pool")).isNull();
            NodeRun cached = node(again, "cache");
            assertThat(cached.items()).isEqualTo(encoded.items());
            assertThat(cached.tokens()).isEqualTo(encoded.tokens());
            assertThat(cached.flops()).isZero();
            assertThat(cached.durationNanos()).isPositive();
            // billed for its lookups' time: a few microseconds, below a nano-dollar here
            assertThat(cached.money().total()).isNotNegative().isLessThan(encoded.money().total());
            assertThat(graph.lastBatch().sequences()).isZero();
        }

        @Test
        void
                anotherTenantsRequestIsNotServedFromItAndARequestOutsideTheCacheNeitherReadsNorFills() {
            graph.executeBatch(List.of(input("acme")));
            GraphRun globex = graph.executeBatch(List.of(input("globex"))).get(0).run();
            assertThat(node(globex, "cache")).isNull();
            GraphRun outside = graph.executeBatch(List.of(input(null))).get(0).run();
            assertThat(node(outside, "cache")).isNull();
            assertThat(node(outside, "encode")).isNotNull();
        }

        @Test
        void identicalSequencesInOneBatchAreEncodedOnceAndTheirCostShared() {
            List<CompiledGraph.BatchOutcome> outcomes =
                    graph.executeBatch(List.of(input("acme"), input("acme")));
            GraphRun a = outcomes.get(0).run();
            GraphRun b = outcomes.get(1).run();
            assertThat(b.output()).isEqualTo(a.output());
            int sequences = node(a, "encode").items();
            assertThat(graph.lastBatch().sequences())
                    .as("the second request's sequences were the first's")
                    .isEqualTo(sequences);
            assertThat(node(b, "encode").items()).isEqualTo(sequences);
            assertThat(node(b, "encode").flops()).as("computed once, for the first").isZero();
            // the one encoding's time and bill are split between the two, adding up exactly
            assertThat(node(a, "encode").durationNanos() + node(b, "encode").durationNanos())
                    .isEqualTo(graph.lastBatch().encodeNanos());
            assertThat(node(a, "encode").money().total() + node(b, "encode").money().total())
                    .isPositive();
        }
    }
}
