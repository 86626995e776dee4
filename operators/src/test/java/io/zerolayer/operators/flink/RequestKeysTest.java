package io.zerolayer.operators.flink;

import static io.zerolayer.operators.flink.FlinkFunctionsTest.CODEC;
import static io.zerolayer.operators.flink.FlinkFunctionsTest.raw;
import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.ZeroLayerHeaders;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RequestKeysTest {
    @Test
    void anAvroRequestIsKeyedByTheIdsItClaimsWithoutDecodingItsPrompt() {
        AnalysisRequest r = FlinkFunctionsTest.request("r-1", "<task:embed> x");
        r.setTenantId("acme");
        assertThat(RequestKeys.key(raw(CODEC.encode(r)))).isEqualTo("4:acme/r-1");
        // length-prefixed: tenant "ac" with id "me/r-1" is another key
        r.setTenantId("ac");
        r.setRequestId("me/r-1");
        assertThat(RequestKeys.key(raw(CODEC.encode(r)))).isEqualTo("2:ac/me/r-1");
    }

    @Test
    void aJsonRequestIsKeyedByItsTopLevelIdsTheLastOfARepeatCounting() {
        assertThat(
                        key(
                                "{\"prompt\":\"x\",\"attributes\":{\"tenantId\":\"no\"},"
                                    + "\"requestId\":\"a\",\"requestId\":\"b\",\"tenantId\":\"t\"}"))
                .isEqualTo("1:t/b");
        assertThat(key("{\"requestId\":\"a\"}")).isEqualTo("?1/42");
        assertThat(key("[1,2]")).isEqualTo("?1/42");
        assertThat(key("{\"requestId\":\"a\",\"tenantId\":")).isEqualTo("?1/42");
        assertThat(key("[".repeat(5000))).isEqualTo("?1/42");
    }

    @Test
    void bytesThatAreNoRequestAreKeyedByTheirPosition() {
        assertThat(RequestKeys.key(raw(new byte[] {(byte) 0xC3, 0x01, 1, 2}))).isEqualTo("?1/42");
        assertThat(RequestKeys.key(raw(null))).isEqualTo("?1/42");
    }

    private static String key(String json) {
        return RequestKeys.key(
                raw(
                        json.getBytes(StandardCharsets.UTF_8),
                        ZeroLayerHeaders.CONTENT_TYPE,
                        ZeroLayerHeaders.JSON));
    }
}
