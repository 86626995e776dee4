package io.zerolayer.operators.replies;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.zerolayer.operators.kafka.ReplyRoute;
import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.AnalysisResponse;
import io.zerolayer.schemas.CostTotal;
import io.zerolayer.schemas.Diagnostic;
import io.zerolayer.schemas.Fidelity;
import io.zerolayer.schemas.ResponseStatus;
import io.zerolayer.schemas.Timings;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The one reply of a split request, from its parts' replies. */
class SplitRepliesTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static final AnalysisRequest REQUEST =
            AnalysisRequest.newBuilder()
                    .setRequestId("long-1")
                    .setTenantId("acme")
                    .setPrompt("…")
                    .setSubmittedAt(Instant.ofEpochMilli(1_000))
                    .setAttributes(Map.of("case", "split"))
                    .build();

    /** Part {@code index} of 2: a classification over {@code tokens} tokens. */
    private static Reply part(
            int index, long tokens, double freight, double weather, String format) {
        String output =
                "{\"label\":\"x\",\"tokens\":"
                        + tokens
                        + ",\"scores\":[{\"label\":\"freight\",\"similarity\":"
                        + freight
                        + "},{\"label\":\"weather\",\"similarity\":"
                        + weather
                        + "}]}";
        AnalysisResponse response =
                Responses.base(REQUEST, 10)
                        .setGraphId("g")
                        .setStatus(ResponseStatus.OK)
                        .setFidelity(index == 1 ? Fidelity.REDUCED : Fidelity.FULL)
                        .setTask("classify")
                        .setOutputFormat(format)
                        .setOutput(output)
                        .setTimings(
                                new Timings(
                                        Instant.ofEpochMilli(1_000),
                                        Instant.now(),
                                        10L,
                                        5L,
                                        100L * (index + 1)))
                        .setCost(new CostTotal(7, 1_000L * (index + 1), 50L, 3L + index))
                        .setDiagnostics(
                                index == 1
                                        ? List.of(
                                                new Diagnostic(
                                                        "ZL092", "warning", 0, 0, "fallback", null))
                                        : List.of())
                        .build();
        ReplyRoute route = new ReplyRoute();
        route.sourceTopic = "requests";
        route.sourceOffset = 42;
        Reply reply = new Reply(response, route);
        reply.part = new Reply.Part(index, 2, "classify", 0);
        return reply;
    }

    @Test
    void okPartsCombineByTheDecoderWithTheirCostsAddedAndTheWorstFidelity() throws Exception {
        // part 1 arrives first: order does not matter
        Reply whole = SplitReplies.combine(List.of(part(1, 300, 0.2, 0.6), part(0, 100, 0.8, 0.4)));
        AnalysisResponse r = whole.response;
        assertThat(r.getStatus()).isEqualTo(ResponseStatus.OK);
        assertThat(r.getRequestId()).isEqualTo("long-1");
        assertThat(r.getFidelity()).isEqualTo(Fidelity.REDUCED);
        JsonNode result = JSON.readTree(r.getOutput());
        // weighted by tokens: freight (0.8·100 + 0.2·300)/400 = 0.35, weather 0.55
        assertThat(result.get("label").asText()).isEqualTo("weather");
        assertThat(result.get("scores").get(0).get("similarity").asDouble()).isEqualTo(0.55);
        assertThat(result.get("tokens").asLong()).isEqualTo(400);
        assertThat(r.getCost().getKernels()).isEqualTo(14);
        assertThat(r.getCost().getKernelNanos()).isEqualTo(3_000);
        assertThat(r.getCost().getNanoUsd()).isEqualTo(7);
        assertThat(r.getCost().getFlops()).isEqualTo(100);
        assertThat(r.getTimings().getExecuteMicros())
                .as("side by side: the longest")
                .isEqualTo(200);
        assertThat(r.getDiagnostics()).extracting(Diagnostic::getCode).containsExactly("ZL092");
        assertThat(r.getAttributes()).containsEntry("case", "split");
        assertThat(whole.part).as("the request's reply, for its requester").isNull();
        assertThat(whole.route.sourceOffset).isEqualTo(42);
    }

    private static Reply part(int index, long tokens, double freight, double weather) {
        return part(index, tokens, freight, weather, "json");
    }

    @Test
    void aTextRequestGetsTheCombinedResultAsText() {
        AnalysisResponse r =
                SplitReplies.combine(
                                List.of(
                                        part(0, 100, 0.8, 0.4, "text"),
                                        part(1, 100, 0.8, 0.4, "text")))
                        .response;
        assertThat(r.getOutputFormat()).isEqualTo("text");
        assertThat(r.getOutput()).startsWith("freight (");
    }

    @Test
    void aFailedPartFailsTheRequestWhichStillCarriesEveryPartsCost() {
        Reply failed = part(1, 300, 0.2, 0.6);
        failed.response =
                AnalysisResponse.newBuilder(failed.response)
                        .setStatus(ResponseStatus.FAILED)
                        .setOutput(null)
                        .setFidelity(null)
                        .setDiagnostics(
                                List.of(new Diagnostic("ZL091", "error", 0, 0, "boom", null)))
                        .build();
        AnalysisResponse r = SplitReplies.combine(List.of(part(0, 100, 0.8, 0.4), failed)).response;
        assertThat(r.getStatus()).isEqualTo(ResponseStatus.FAILED);
        assertThat(r.getOutput()).isNull();
        assertThat(r.getFidelity()).isNull();
        assertThat(r.getDiagnostics()).extracting(Diagnostic::getCode).containsExactly("ZL091");
        assertThat(r.getCost().getKernels()).isEqualTo(14);

        AnalysisResponse unreadable =
                SplitReplies.failed(
                                List.of(part(0, 100, 0.8, 0.4)),
                                new IllegalStateException("not JSON"))
                        .response;
        assertThat(unreadable.getStatus()).isEqualTo(ResponseStatus.FAILED);
        assertThat(unreadable.getDiagnostics())
                .extracting(Diagnostic::getMessage)
                .anySatisfy(m -> assertThat(m).contains("not JSON"));
    }

    @Test
    void partsOfDifferentRequestsOrMissingPartsAreRefused() {
        Reply other = part(1, 100, 0.5, 0.5);
        other.response = AnalysisResponse.newBuilder(other.response).setRequestId("long-2").build();
        assertThatThrownBy(() -> SplitReplies.combine(List.of(part(0, 100, 0.8, 0.4), other)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SplitReplies.combine(List.of(part(0, 100, 0.8, 0.4))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1 of 2");
        assertThatThrownBy(
                        () ->
                                SplitReplies.combine(
                                        List.of(part(0, 100, 0.8, 0.4), part(0, 100, 0.8, 0.4))))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aClassificationsEvidenceIsEachLabelsBestSentenceOfAnyPart() throws Exception {
        Reply first = part(0, 100, 0.8, 0.4);
        Reply second = part(1, 100, 0.2, 0.6);
        first.response = withEvidence(first.response, 0.5, 0.3);
        second.response = withEvidence(second.response, 0.4, 0.7);
        JsonNode result =
                JSON.readTree(SplitReplies.combine(List.of(first, second)).response.getOutput());
        // in the combined scores' order: freight 0.5, weather 0.5 → the first by name order
        JsonNode evidence = result.get("evidence");
        assertThat(evidence).hasSize(2);
        java.util.Map<String, Double> best = new java.util.HashMap<>();
        evidence.forEach(e -> best.put(e.get("label").asText(), e.get("similarity").asDouble()));
        assertThat(best).containsEntry("freight", 0.5).containsEntry("weather", 0.7);
        assertThat(evidence.get(0).get("label").asText())
                .isEqualTo(result.get("scores").get(0).get("label").asText());
    }

    private static AnalysisResponse withEvidence(AnalysisResponse r, double freight, double weather)
            throws Exception {
        com.fasterxml.jackson.databind.node.ObjectNode out =
                (com.fasterxml.jackson.databind.node.ObjectNode) JSON.readTree(r.getOutput());
        var evidence = out.putArray("evidence");
        evidence.addObject().put("label", "freight").put("text", "f").put("similarity", freight);
        evidence.addObject().put("label", "weather").put("text", "w").put("similarity", weather);
        return AnalysisResponse.newBuilder(r).setOutput(JSON.writeValueAsString(out)).build();
    }
}
