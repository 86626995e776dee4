package io.zerolayer.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zerolayer.schemas.serde.JsonCodec;
import io.zerolayer.schemas.serde.UndecodableRecordException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonCodecTest {
    private static final Instant NOW = Instant.parse("2026-12-02T10:00:00Z");

    @Test
    void readsAPlainJsonRequestWithDefaults() {
        AnalysisRequest r =
                JsonCodec.readRequest(
                        "{\"requestId\":\"r1\",\"tenantId\":\"t\",\"prompt\":\"<task:embed> x\",\"deadline\":\"2026-12-02T10:01:00Z\"}"
                                .getBytes(StandardCharsets.UTF_8),
                        NOW);
        assertThat(r.getSubmittedAt()).isEqualTo(NOW);
        assertThat(r.getDeadline()).isEqualTo(Instant.parse("2026-12-02T10:01:00Z"));
        assertThat(r.getAttributes()).isEmpty();
        assertThat(JsonCodec.readRequest(JsonCodec.writeRequest(r), NOW)).isEqualTo(r);
    }

    @Test
    void namesTheMissingField() {
        assertThatThrownBy(
                        () ->
                                JsonCodec.readRequest(
                                        "{\"requestId\":\"r1\",\"prompt\":\"p\"}".getBytes(), NOW))
                .isInstanceOf(UndecodableRecordException.class)
                .hasMessageContaining("tenantId");
        assertThatThrownBy(() -> JsonCodec.readRequest("not json".getBytes(), NOW))
                .isInstanceOf(UndecodableRecordException.class);
    }

    @Test
    void responsesRoundTripAndJsonResultsStayStructured() {
        AnalysisResponse response =
                AnalysisResponse.newBuilder()
                        .setRequestId("r1")
                        .setTenantId("t")
                        .setGraphId("ab")
                        .setStatus(ResponseStatus.OK)
                        .setFidelity(Fidelity.FULL)
                        .setTask("classify")
                        .setOutputFormat("json")
                        .setOutput("{\"label\":\"refund\"}")
                        .setDiagnostics(
                                List.of(new Diagnostic("ZL001", "warning", 1, 2, "m", null)))
                        .setTimings(new Timings(NOW, NOW.plusMillis(5), 1L, 2L, 3L))
                        .setCost(new CostTotal(5, 123L, 456L, null))
                        .setAttributes(Map.of("k", "v"))
                        .build();
        String json = new String(JsonCodec.writeResponse(response), StandardCharsets.UTF_8);
        assertThat(json).contains("\"result\":{\"label\":\"refund\"}");
        assertThat(JsonCodec.readResponse(json.getBytes(StandardCharsets.UTF_8)))
                .isEqualTo(response);
    }
}
