package io.zerolayer.operators.scheduling;

import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.operators.contracts.SafeModePolicy;
import io.zerolayer.operators.execution.ExecutionSettings;
import io.zerolayer.operators.execution.WarmGraphCache;
import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.KernelCostRecord;
import io.zerolayer.schemas.ResponseStatus;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Requests answered in-process as the job answers them: type-checked, compiled once per structure,
 * batched by graph, each OK answer with the cost record of every kernel it ran.
 */
class InProcessAnalyzerTest {
    private static InProcessAnalyzer analyzer;

    @BeforeAll
    static void open() {
        analyzer =
                InProcessAnalyzer.open(
                        new InProcessAnalyzer.Settings(
                                ExecutorSetup.of(
                                        null,
                                        "cpu-generic",
                                        new WarmGraphCache.Bounds(8, 64 << 20, 3_600_000),
                                        ExecutionSettings.DEFAULTS),
                                SafeModePolicy.of(SafeModePolicy.Policy.STRICT, Map.of()),
                                16_384,
                                io.zerolayer.operators.execution.EmbeddingCache.Settings.OFF));
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
        var settings =
                new io.zerolayer.operators.execution.EmbeddingCache.Settings(
                        16 << 20,
                        io.zerolayer.operators.execution.EmbeddingCache.Scope.TENANT,
                        false);
        var jobs = io.zerolayer.operators.execution.EmbeddingCache.forTaskManager(settings);
        long jobEntries = jobs.size();
        try (InProcessAnalyzer cached =
                InProcessAnalyzer.open(
                        new InProcessAnalyzer.Settings(
                                ExecutorSetup.of(
                                        null,
                                        "cpu-generic",
                                        new WarmGraphCache.Bounds(8, 64 << 20, 3_600_000),
                                        ExecutionSettings.DEFAULTS),
                                SafeModePolicy.of(SafeModePolicy.Policy.STRICT, Map.of()),
                                16_384,
                                settings))) {
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
}
