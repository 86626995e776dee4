package io.zerolayer.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.ZeroLayerHeaders;
import io.zerolayer.schemas.auth.RequestSignature;
import io.zerolayer.schemas.auth.TenantCredentials;
import io.zerolayer.schemas.serde.SingleObjectCodec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SigningProducerInterceptorTest {
    private static final String KEY =
            "5f0c6a1e9b2d4c7f8a3e1b0d2c4f6e8a9b1c3d5e7f9a0b2c4d6e8f0a1b3c5d7e";

    private static SigningProducerInterceptor configured(Path dir) throws Exception {
        Path key = dir.resolve("acme.key");
        Files.writeString(key, KEY + "\n");
        SigningProducerInterceptor interceptor = new SigningProducerInterceptor();
        interceptor.configure(
                Map.of(
                        SigningProducerInterceptor.TENANT,
                        "acme",
                        SigningProducerInterceptor.KEY_FILE,
                        key.toString()));
        return interceptor;
    }

    /** What the job's door computes for these headers and value, as tenant acme with KEY. */
    private static String expectedSignature(RecordHeaders headers, String requestId, byte[] value) {
        long timestamp =
                Long.parseLong(
                        new String(
                                headers.lastHeader(RequestSignature.TIMESTAMP_HEADER).value(),
                                StandardCharsets.US_ASCII));
        RecordHeaders copy = new RecordHeaders(headers.toArray());
        TenantCredentials.of("acme", KEY).sign(copy, requestId, value, timestamp);
        return new String(copy.lastHeader(RequestSignature.SIGNATURE_HEADER).value());
    }

    @Test
    void anAvroRequestIsSignedOverItsBytesAndReplyTopic(@TempDir Path dir) throws Exception {
        byte[] value =
                SingleObjectCodec.of(AnalysisRequest.class)
                        .encode(
                                AnalysisRequest.newBuilder()
                                        .setRequestId("r-1")
                                        .setTenantId("acme")
                                        .setPrompt("<task:embed> hello")
                                        .setSubmittedAt(Instant.now())
                                        .build());
        ProducerRecord<Object, Object> record =
                new ProducerRecord<>("zerolayer.requests", null, value);
        record.headers().add(ZeroLayerHeaders.REPLY_TOPIC, "zerolayer.replies.acme".getBytes());
        configured(dir).onSend(record);
        RecordHeaders headers = (RecordHeaders) record.headers();
        assertThat(new String(headers.lastHeader(RequestSignature.SIGNATURE_HEADER).value()))
                .isEqualTo(expectedSignature(headers, "r-1", value))
                .hasSize(64);
        // another reply topic would not verify: the signature covers it
        RecordHeaders moved = new RecordHeaders(headers.toArray());
        moved.remove(ZeroLayerHeaders.REPLY_TOPIC);
        moved.add(ZeroLayerHeaders.REPLY_TOPIC, "zerolayer.replies.globex".getBytes());
        assertThat(expectedSignature(moved, "r-1", value))
                .isNotEqualTo(
                        new String(headers.lastHeader(RequestSignature.SIGNATURE_HEADER).value()));
    }

    @Test
    void aJsonStringIsSignedAsItsUtf8AndMarkedJson(@TempDir Path dir) throws Exception {
        String json = "{\"requestId\":\"r-2\",\"tenantId\":\"acme\",\"prompt\":\"<task:embed> é\"}";
        ProducerRecord<Object, Object> record =
                new ProducerRecord<>("zerolayer.requests", null, json);
        configured(dir).onSend(record);
        RecordHeaders headers = (RecordHeaders) record.headers();
        assertThat(new String(headers.lastHeader(ZeroLayerHeaders.CONTENT_TYPE).value()))
                .isEqualTo(ZeroLayerHeaders.JSON);
        assertThat(new String(headers.lastHeader(RequestSignature.SIGNATURE_HEADER).value()))
                .isEqualTo(
                        expectedSignature(headers, "r-2", json.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void whatIsNoRequestGoesUnsignedAndAMissingKeyIsAConfigError(@TempDir Path dir)
            throws Exception {
        ProducerRecord<Object, Object> record =
                new ProducerRecord<>("zerolayer.requests", null, 42L);
        configured(dir).onSend(record);
        assertThat(record.headers().lastHeader(RequestSignature.SIGNATURE_HEADER)).isNull();
        assertThatThrownBy(
                        () ->
                                new SigningProducerInterceptor()
                                        .configure(Map.of(SigningProducerInterceptor.TENANT, "")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(SigningProducerInterceptor.TENANT);
    }
}
