package io.zerolayer.operators.scheduling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.zerolayer.operators.contracts.SafeModePolicy;
import io.zerolayer.operators.execution.EmbeddingCache;
import io.zerolayer.operators.execution.ExecutionSettings;
import io.zerolayer.operators.execution.WarmGraphCache;
import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.AnalysisResponse;
import io.zerolayer.schemas.KernelCostRecord;
import io.zerolayer.schemas.ResponseStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Requests answered in-process as the job answers them: type-checked, compiled once per structure,
 * batched by graph, each OK answer with the cost record of every kernel it ran.
 */
class InProcessAnalyzerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static InProcessAnalyzer analyzer;

    @BeforeAll
    static void open() {
        analyzer = analyzer(EmbeddingCache.Settings.OFF);
    }

    /** An analyzer of this machine's slot, with at most 8 warm graphs, and {@code cache}. */
    private static InProcessAnalyzer analyzer(EmbeddingCache.Settings cache) {
        return InProcessAnalyzer.open(
                new InProcessAnalyzer.Settings(
                        ExecutorSetup.of(
                                null,
                                "cpu-generic",
                                new WarmGraphCache.Bounds(8, 64 << 20, 3_600_000),
                                ExecutionSettings.DEFAULTS),
                        SafeModePolicy.of(SafeModePolicy.Policy.STRICT, Map.of()),
                        16_384,
                        cache));
    }

    @AfterAll
    static void close() {
        analyzer.close();
    }

    private static AnalysisRequest request(String id, String prompt) {
        return request(id, prompt, Map.of());
    }

    private static AnalysisRequest request(
            String id, String prompt, Map<String, String> attributes) {
        return AnalysisRequest.newBuilder()
                .setRequestId(id)
                .setTenantId("sql")
                .setPrompt(prompt)
                .setSubmittedAt(Instant.now())
                .setAttributes(attributes)
                .build();
    }

    @Test
    void withACacheTheRepeatedLabelsAreReadFromItNotFromTheStreamingJobsCache() {
        var settings = new EmbeddingCache.Settings(16 << 20, EmbeddingCache.Scope.TENANT, false);
        var jobs = EmbeddingCache.forTaskManager(settings);
        long jobEntries = jobs.size();
        try (InProcessAnalyzer cached = analyzer(settings)) {
            cached.analyse(List.of(request("c1", ticket("My lamp broke."))));
            List<InProcessAnalyzer.Answer> again =
                    cached.analyse(List.of(request("c2", ticket("My lamp broke."))));
            assertThat(again.get(0).costs())
                    .extracting(KernelCostRecord::getKernel)
                    .as("the second time, every sequence from the cache")
                    .contains("cache")
                    .doesNotContain("encode");
        }
        // a tenant an in-process caller names is not verified: it never reads, or fills, the
        // cache of the streaming job's slots
        assertThat(jobs.size()).isEqualTo(jobEntries);
    }

    @Test
    void aStrictRequestRunsTheComplianceNodesAndAStandardOneDoesNot() {
        List<InProcessAnalyzer.Answer> answers =
                analyzer.analyse(
                        List.of(
                                request(
                                        "strict",
                                        ticket("Call me on 555-0100 about my refund."),
                                        Map.of("compliance", "strict")),
                                request(
                                        "standard",
                                        ticket("Call me on 555-0100 about my refund."))));
        assertThat(answers.get(0).costs())
                .extracting(KernelCostRecord::getNodeId)
                .contains("redact", "audit");
        assertThat(answers.get(1).costs())
                .extracting(KernelCostRecord::getNodeId)
                .doesNotContain("redact", "audit");
    }

    private static String ticket(String text) {
        return "<task:classify><output_format:json><labels>refund, shipping delay</labels>"
                + "<ticket>"
                + text
                + "</ticket>";
    }

    @Test
    void aBatchIsAnsweredInOrderRejectionsWithTheirDiagnosticsAndEachKernelBilled() {
        List<InProcessAnalyzer.Answer> answers =
                analyzer.analyse(
                        List.of(
                                request("a", ticket("I want my money back for the broken lamp.")),
                                request("typo", "<task:clasify><ticket>Where is it?</ticket>"),
                                request("b", ticket("My parcel is two weeks late."))));

        assertThat(answers).hasSize(3);
        assertThat(answers.get(0).response().getRequestId()).isEqualTo("a");
        assertThat(answers.get(0).response().getStatus()).isEqualTo(ResponseStatus.OK);
        assertThat(answers.get(0).response().getOutput()).contains("\"label\":\"refund\"");
        assertThat(answers.get(2).response().getOutput()).contains("\"label\":\"shipping delay\"");
        // one graph for both tickets, compiled once
        assertThat(answers.get(0).response().getGraphId())
                .isEqualTo(answers.get(2).response().getGraphId());
        assertThat(analyzer.warmGraphs()).isEqualTo(1);
        // every kernel of an answer billed to its request, one record each
        for (InProcessAnalyzer.Answer a : List.of(answers.get(0), answers.get(2))) {
            assertThat(a.costs())
                    .hasSize(a.response().getCost().getKernels())
                    .allMatch(c -> c.getRequestId().equals(a.response().getRequestId()))
                    .extracting(KernelCostRecord::getRecordId)
                    .doesNotHaveDuplicates();
        }
        InProcessAnalyzer.Answer typo = answers.get(1);
        assertThat(typo.response().getStatus()).isEqualTo(ResponseStatus.REJECTED);
        assertThat(typo.response().getDiagnostics())
                .anySatisfy(d -> assertThat(d.getMessage()).contains("clasify"));
        assertThat(typo.costs()).isEmpty();
    }

    /**
     * An answer is a function of its request alone: the samples of every task, answered one at a
     * time and all in one call (their encoder passes joined across graphs, padded to each other),
     * give the same labels, passages, sentences and vectors, every number within 1e-4. {@code fast}
     * runs the int8 tier, {@code best} fp32; each shipped tier's encoder is checked alone and
     * batched in {@code SentenceEncoderTest}.
     */
    @ParameterizedTest
    @ValueSource(strings = {"fast", "best"})
    void everySampleIsAnsweredAloneAsInABatchOfAllOfThem(String quality) throws IOException {
        List<AnalysisRequest> requests = samples(quality);
        try (InProcessAnalyzer analyzer = analyzer(EmbeddingCache.Settings.OFF)) {
            sameAnswersAloneAndTogether(analyzer, requests);
        }
    }

    private static void sameAnswersAloneAndTogether(
            InProcessAnalyzer analyzer, List<AnalysisRequest> requests) throws IOException {
        List<AnalysisResponse> together =
                analyzer.analyse(requests).stream()
                        .map(InProcessAnalyzer.Answer::response)
                        .toList();
        int compared = 0;
        for (int i = 0; i < requests.size(); i++) {
            AnalysisResponse alone = analyzer.analyse(List.of(requests.get(i))).get(0).response();
            AnalysisResponse batched = together.get(i);
            String id = requests.get(i).getRequestId();
            assertThat(batched.getStatus()).as(id).isEqualTo(alone.getStatus());
            assertThat(batched.getGraphId()).as(id).isEqualTo(alone.getGraphId());
            if (alone.getStatus() == ResponseStatus.OK) {
                if (alone.getOutput().startsWith("{")) {
                    sameAnswer(
                            id,
                            JSON.readTree(alone.getOutput()),
                            JSON.readTree(batched.getOutput()));
                } else {
                    // a text answer is the passage or the summary's sentences, without scores
                    assertThat(batched.getOutput()).as(id).isEqualTo(alone.getOutput());
                }
                compared++;
            }
        }
        assertThat(compared).isGreaterThanOrEqualTo(10);
    }

    /** Equal text and structure; numbers within 1e-4. */
    private static void sameAnswer(String path, JsonNode alone, JsonNode batched) {
        if (alone.isNumber()) {
            assertThat(batched.isNumber()).as(path).isTrue();
            assertThat(batched.asDouble()).as(path).isCloseTo(alone.asDouble(), within(1e-4));
        } else if (alone.isContainerNode()) {
            assertThat(batched.size()).as(path).isEqualTo(alone.size());
            if (alone.isArray()) {
                for (int i = 0; i < alone.size(); i++) {
                    sameAnswer(path + "[" + i + "]", alone.get(i), batched.get(i));
                }
            } else {
                for (Iterator<String> names = alone.fieldNames(); names.hasNext(); ) {
                    String name = names.next();
                    assertThat(batched.has(name)).as(path + "." + name).isTrue();
                    sameAnswer(path + "." + name, alone.get(name), batched.get(name));
                }
            }
        } else {
            assertThat(batched).as(path).isEqualTo(alone);
        }
    }

    /** The prompts of {@code samples/}, every task, each asking for {@code quality}. */
    private static List<AnalysisRequest> samples(String quality) throws IOException {
        List<AnalysisRequest> out = new ArrayList<>();
        try (Stream<Path> files = Files.list(Path.of("..", "samples"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".prompt")).sorted().toList()) {
                out.add(
                        request(
                                f.getFileName().toString(),
                                Files.readString(f),
                                Map.of("quality", quality)));
            }
        }
        return out;
    }
}
