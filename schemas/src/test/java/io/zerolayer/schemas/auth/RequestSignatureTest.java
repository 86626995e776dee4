package io.zerolayer.schemas.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zerolayer.schemas.ZeroLayerHeaders;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

class RequestSignatureTest {
    static final String KEY_HEX =
            "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
    static final byte[] KEY = HexFormat.of().parseHex(KEY_HEX);
    static final byte[] VALUE =
            "{\"requestId\":\"r-1\",\"tenantId\":\"acme\",\"prompt\":\"<task:embed> hi\"}"
                    .getBytes(StandardCharsets.UTF_8);

    /** Computed with Python's hmac and hashlib, as docs/tenants.md's example does. */
    static final String PYTHON_SIGNATURE =
            "3436b0cdd4d8ba1bcb64bd9cf8658254e15eaaf4d1212ed29606fd4d68cc137d";

    @Test
    void theCanonicalStringIsSixLinesAndMatchesAnIndependentImplementation() {
        String canonical =
                RequestSignature.canonical(
                        "acme", "r-1", 1764930000000L, "zerolayer.replies.acme", VALUE);
        assertThat(canonical)
                .isEqualTo(
                        "zerolayer-v1\n"
                            + "acme\n"
                            + "r-1\n"
                            + "1764930000000\n"
                            + "zerolayer.replies.acme\n"
                            + "543e52ae4739515b1713091c035c8cff8bf3c7f6d26ceed98dc16a1f1c21c81a");
        assertThat(RequestSignature.sign(KEY, canonical)).isEqualTo(PYTHON_SIGNATURE);
        assertThat(RequestSignature.verifies(KEY, canonical, PYTHON_SIGNATURE.toUpperCase()))
                .isTrue();
    }

    @Test
    void anyChangedFieldOrKeyFailsVerification() {
        String signed =
                RequestSignature.sign(
                        KEY, RequestSignature.canonical("acme", "r-1", 1L, null, VALUE));
        byte[] otherKey = KEY.clone();
        otherKey[0] ^= 1;
        byte[] otherValue = VALUE.clone();
        otherValue[3] ^= 1;
        assertThat(RequestSignature.verifies(KEY, canon("acme", "r-1", 1L, null, VALUE), signed))
                .isTrue();
        assertThat(
                        new boolean[] {
                            RequestSignature.verifies(
                                    otherKey, canon("acme", "r-1", 1L, null, VALUE), signed),
                            RequestSignature.verifies(
                                    KEY, canon("globex", "r-1", 1L, null, VALUE), signed),
                            RequestSignature.verifies(
                                    KEY, canon("acme", "r-2", 1L, null, VALUE), signed),
                            RequestSignature.verifies(
                                    KEY, canon("acme", "r-1", 2L, null, VALUE), signed),
                            RequestSignature.verifies(
                                    KEY, canon("acme", "r-1", 1L, "elsewhere", VALUE), signed),
                            RequestSignature.verifies(
                                    KEY, canon("acme", "r-1", 1L, null, otherValue), signed),
                            RequestSignature.verifies(
                                    KEY, canon("acme", "r-1", 1L, null, VALUE), "not hex"),
                            RequestSignature.verifies(
                                    KEY, canon("acme", "r-1", 1L, null, VALUE), "")
                        })
                .containsOnly(false);
    }

    @Test
    void credentialsSignOverTheReplyTopicHeaderAndReplaceEarlierSignatures() {
        TenantCredentials acme = TenantCredentials.of("acme", KEY_HEX);
        RecordHeaders headers = new RecordHeaders();
        headers.add(ZeroLayerHeaders.REPLY_TOPIC, "zerolayer.replies.acme".getBytes());
        headers.add(RequestSignature.SIGNATURE_HEADER, "stale".getBytes());
        acme.sign(headers, "r-1", VALUE, 1764930000000L);

        assertThat(headers.headers(RequestSignature.SIGNATURE_HEADER)).hasSize(1);
        assertThat(new String(headers.lastHeader(RequestSignature.SIGNATURE_HEADER).value()))
                .isEqualTo(PYTHON_SIGNATURE);
        assertThat(new String(headers.lastHeader(RequestSignature.TIMESTAMP_HEADER).value()))
                .isEqualTo("1764930000000");
        assertThat(acme).hasToString("TenantCredentials[acme, key hidden]");
    }

    @Test
    void badKeysAreRefusedWithoutQuotingThem() {
        assertThatThrownBy(() -> TenantCredentials.of("acme", "00112233"))
                .hasMessageContaining("4 bytes")
                .hasMessageNotContaining("00112233");
        assertThatThrownBy(() -> TenantCredentials.of("acme", "secret-not-hex-secret-not-hex"))
                .hasMessageContaining("hex digits")
                .hasMessageNotContaining("secret-not-hex");
        assertThatThrownBy(() -> TenantCredentials.of(" ", KEY_HEX))
                .hasMessageContaining("tenant id");
    }

    private static String canon(
            String tenant, String id, long timestamp, String replyTopic, byte[] value) {
        return RequestSignature.canonical(tenant, id, timestamp, replyTopic, value);
    }
}
