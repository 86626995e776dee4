package io.zerolayer.schemas.auth;

import io.zerolayer.schemas.ZeroLayerHeaders;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Objects;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * A tenant's id and one of its keys: what a requester signs its records with ({@link
 * RequestSignature}).
 *
 * <pre>{@code
 * TenantCredentials acme = TenantCredentials.of("acme", System.getenv("ZEROLAYER_TENANT_KEY"));
 * ProducerRecord<byte[], byte[]> record = new ProducerRecord<>("zerolayer.requests", value);
 * acme.sign(record.headers(), request.getRequestId(), value);
 * }</pre>
 */
public final class TenantCredentials {
    private final String tenantId;
    private final byte[] key;

    private TenantCredentials(String tenantId, byte[] key) {
        this.tenantId = tenantId;
        this.key = key;
    }

    /**
     * @param hexKey the key as hex digits, at least {@value RequestSignature#MIN_KEY_BYTES} bytes
     * @throws IllegalArgumentException naming what is wrong with either (never the key itself)
     */
    public static TenantCredentials of(String tenantId, String hexKey) {
        return of(tenantId, parseKey(hexKey, "the key of tenant " + tenantId));
    }

    /**
     * @param key the key's bytes, at least {@value RequestSignature#MIN_KEY_BYTES}
     */
    public static TenantCredentials of(String tenantId, byte[] key) {
        if (tenantId == null || tenantId.isBlank()) {
            throw new IllegalArgumentException("A tenant id is needed to sign requests");
        }
        if (key.length < RequestSignature.MIN_KEY_BYTES) {
            throw new IllegalArgumentException(
                    "The key of tenant "
                            + tenantId
                            + " has "
                            + key.length
                            + " bytes; use at least "
                            + RequestSignature.MIN_KEY_BYTES);
        }
        return new TenantCredentials(tenantId, key.clone());
    }

    /**
     * A key written as hex digits.
     *
     * @param what names the key in the message of a bad one
     * @throws IllegalArgumentException when it is not hex or shorter than {@value
     *     RequestSignature#MIN_KEY_BYTES} bytes
     */
    public static byte[] parseKey(String hexKey, String what) {
        byte[] key;
        try {
            key = HexFormat.of().parseHex(Objects.requireNonNull(hexKey, what).strip());
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new IllegalArgumentException(
                    what + " must be hex digits (e.g. from: openssl rand -hex 32)");
        }
        if (key.length < RequestSignature.MIN_KEY_BYTES) {
            throw new IllegalArgumentException(
                    what
                            + " has "
                            + key.length
                            + " bytes; use at least "
                            + RequestSignature.MIN_KEY_BYTES
                            + " (openssl rand -hex 32 makes 32)");
        }
        return key;
    }

    public String tenantId() {
        return tenantId;
    }

    /** Signs a record of request {@code requestId} at this moment. */
    public void sign(Headers headers, String requestId, byte[] value) {
        sign(headers, requestId, value, System.currentTimeMillis());
    }

    /**
     * Puts {@code x-zerolayer-timestamp} and {@code x-zerolayer-signature} on a record of this
     * tenant's request {@code requestId}, replacing any there. Set {@code kafka_replyTopic} first:
     * the signature covers it.
     */
    public void sign(Headers headers, String requestId, byte[] value, long timestamp) {
        Header replyTopic = headers.lastHeader(ZeroLayerHeaders.REPLY_TOPIC);
        String canonical =
                RequestSignature.canonical(
                        tenantId,
                        requestId,
                        timestamp,
                        replyTopic == null || replyTopic.value() == null
                                ? null
                                : new String(replyTopic.value(), StandardCharsets.UTF_8),
                        value);
        headers.remove(RequestSignature.TIMESTAMP_HEADER);
        headers.remove(RequestSignature.SIGNATURE_HEADER);
        headers.add(
                RequestSignature.TIMESTAMP_HEADER,
                Long.toString(timestamp).getBytes(StandardCharsets.US_ASCII));
        headers.add(
                RequestSignature.SIGNATURE_HEADER,
                RequestSignature.sign(key, canonical).getBytes(StandardCharsets.US_ASCII));
    }

    @Override
    public String toString() {
        return "TenantCredentials[" + tenantId + ", key hidden]";
    }
}
