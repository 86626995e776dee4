package io.zerolayer.operators.scheduling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.zerolayer.gpu.EncoderModel;
import io.zerolayer.operators.contracts.DiagnosticCodes;
import io.zerolayer.operators.contracts.SafeModePolicy;
import io.zerolayer.operators.contracts.TaskContracts;
import io.zerolayer.operators.execution.EmbeddingCache;
import io.zerolayer.operators.execution.EncoderPool;
import io.zerolayer.operators.execution.ExampleEmbedder;
import io.zerolayer.operators.execution.ExecutionSettings;
import io.zerolayer.operators.execution.WarmGraphCache;
import io.zerolayer.operators.heads.ClassifierHead;
import io.zerolayer.operators.heads.TaskHeads;
import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.AnalysisResponse;
import io.zerolayer.schemas.KernelCostRecord;
import io.zerolayer.schemas.ResponseStatus;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A classify task declared with labelled examples is answered by the head the compiler fit on them:
 * its own labels, the head's probabilities, the head billed as a kernel of its own, and {@code
 * unknown} where the task's min-probability is not reached.
 */
class ClassifierHeadsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Three kinds of support ticket, four examples each; a second task with a high bar. */
    static final String TASKS =
            """
              routing:
                decoder: classify
                requires: [ticket]
                allows: [ticket]
                output-formats: [json, text]
                examples: &routing
                  refund:
                    - I want my money back for the broken kettle.
                    - Please refund my order, the item arrived damaged.
                    - The charge was wrong, return the payment to my card.
                    - Cancel the purchase and give me a refund.
                  outage:
                    - The website is down and nothing loads.
                    - Your service has been unavailable since this morning.
                    - The app crashes and the servers do not respond.
                    - We cannot reach the API, every call times out.
                  login:
                    - I forgot my password and cannot sign in.
                    - The login page rejects my credentials.
                    - Two-factor codes never arrive, so I am locked out.
                    - My account is locked after too many sign-in attempts.
              routing-sure:
                decoder: classify
                requires: [ticket]
                allows: [ticket]
                output-formats: [json]
                min-probability: 0.99
                examples: *routing
            """;

    private static TaskContracts contracts;
    private static InProcessAnalyzer analyzer;

    @BeforeAll
    static void open() {
        String yaml = TaskContracts.builtIn().source().stripTrailing() + "\n" + TASKS;
        contracts = TaskContracts.parse(yaml);
        analyzer =
                InProcessAnalyzer.open(
                        new InProcessAnalyzer.Settings(
                                ExecutorSetup.of(
                                        yaml,
                                        "cpu-generic",
                                        new WarmGraphCache.Bounds(8, 64 << 20, 3_600_000),
                                        ExecutionSettings.DEFAULTS),
                                SafeModePolicy.of(SafeModePolicy.Policy.STRICT, Map.of()),
                                16_384,
                                EmbeddingCache.Settings.OFF));
    }

    @AfterAll
    static void close() {
        analyzer.close();
    }

    private static AnalysisRequest request(String id, String task, String ticket) {
        return AnalysisRequest.newBuilder()
                .setRequestId(id)
                .setTenantId("heads")
                .setPrompt("<task:" + task + "><output_format:json><ticket>" + ticket + "</ticket>")
                .setSubmittedAt(Instant.now())
                .setAttributes(Map.of())
                .build();
    }

    @Test
    void aTicketIsAnsweredByTheHeadWithItsProbabilitiesAndTheHeadIsBilled() throws Exception {
        String ticket = "Give me my money back, the blender I bought is broken.";
        InProcessAnalyzer.Answer a =
                analyzer.analyse(List.of(request("r1", "routing", ticket))).get(0);
        AnalysisResponse response = a.response();
        assertThat(response.getStatus())
                .as(response.getDiagnostics().toString())
                .isEqualTo(ResponseStatus.OK);
        JsonNode out = JSON.readTree(response.getOutput());
        assertThat(out.path("head").asBoolean()).isTrue();
        assertThat(out.path("label").asText()).isEqualTo("refund");
        double sum = 0;
        for (JsonNode s : out.path("scores")) {
            sum += s.path("probability").asDouble();
        }
        assertThat(sum).isCloseTo(1.0, within(1e-3));
        assertThat(out.path("evidence").path(0).path("label").asText()).isEqualTo("refund");

        KernelCostRecord head =
                a.costs().stream()
                        .filter(c -> c.getKernel().equals("head"))
                        .findFirst()
                        .orElseThrow();
        assertThat(head.getFlops()).isPositive();
        assertThat(a.costs())
                .extracting(KernelCostRecord::getKernel)
                .as("labels are not encoded: the head does not read label names")
                .contains("encode", "pool", "head", "decode");

        // the graph's answer is the head applied to the ticket as the compiler embeds examples
        EncoderModel tier =
                EncoderModel.byId(
                        a.costs().stream()
                                .filter(c -> c.getKernel().equals("encode"))
                                .findFirst()
                                .orElseThrow()
                                .getModel());
        try (EncoderPool pool = new EncoderPool(1)) {
            TaskHeads heads = TaskHeads.of(contracts, new ExampleEmbedder(pool));
            ClassifierHead fit = heads.head("routing", tier).head();
            float[] v = new ExampleEmbedder(pool).features(tier, List.of(ticket))[0];
            double[] p = ClassifierHead.probabilities(fit.logits(v));
            for (JsonNode s : out.path("scores")) {
                int l = fit.labels().indexOf(s.path("label").asText());
                assertThat(s.path("probability").asDouble())
                        .as(s.path("label").asText())
                        .isCloseTo(p[l], within(1e-4));
            }
        }
    }

    @Test
    void belowTheTasksMinProbabilityTheAnswerIsUnknownWithADiagnostic() throws Exception {
        AnalysisResponse sure =
                analyzer.analyse(
                                List.of(
                                        request(
                                                "u1",
                                                "routing-sure",
                                                "The weather in the mountains was lovely"
                                                        + " this weekend.")))
                        .get(0)
                        .response();
        assertThat(sure.getStatus()).isEqualTo(ResponseStatus.OK);
        JsonNode out = JSON.readTree(sure.getOutput());
        assertThat(out.path("label").asText()).isEqualTo("unknown");
        assertThat(out.path("scores").path(0).path("probability").asDouble()).isLessThan(0.99);
        assertThat(sure.getDiagnostics())
                .anySatisfy(
                        d -> {
                            assertThat(d.getCode())
                                    .isEqualTo(DiagnosticCodes.BELOW_MIN_PROBABILITY);
                            assertThat(d.getMessage()).contains("0.99");
                        });
        // the same ticket under the task without the bar gets a label, and no such diagnostic
        AnalysisResponse plain =
                analyzer.analyse(
                                List.of(
                                        request(
                                                "u2",
                                                "routing",
                                                "The weather in the mountains was lovely"
                                                        + " this weekend.")))
                        .get(0)
                        .response();
        assertThat(JSON.readTree(plain.getOutput()).path("label").asText())
                .isIn("refund", "outage", "login");
        assertThat(plain.getDiagnostics())
                .noneMatch(d -> d.getCode().equals(DiagnosticCodes.BELOW_MIN_PROBABILITY));
    }
}
