package io.zerolayer.schemas.auth;

import io.zerolayer.schemas.Sha256;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The HMAC-SHA256 signature a tenant puts on each request record, and the canonical string it
 * signs: six lines joined by {@code \n}, no newline at the end,
 *
 * <pre>
 * zerolayer-v1
 * &lt;tenantId&gt;            as in the request
 * &lt;requestId&gt;           as in the request
 * &lt;timestamp&gt;           header x-zerolayer-timestamp: epoch milliseconds, decimal
 * &lt;kafka_replyTopic&gt;    the header's value, or nothing when the record has none
 * &lt;sha256(value)&gt;       lowercase hex SHA-256 of the record's value bytes
 * </pre>
 *
 * The signature travels in header {@code x-zerolayer-signature} as lowercase hex. Signing the value
 * covers everything in the request (prompt, deadline, attributes); signing the reply topic means
 * nobody can redirect a tenant's answers by changing a header. Signer and verifier both use this
 * class, so they cannot disagree on the string.
 */
public final class RequestSignature {
    /** The first line of the canonical string, naming its format. */
    public static final String VERSION = "zerolayer-v1";

    /** Header with the time the requester signed, epoch milliseconds as decimal digits. */
    public static final String TIMESTAMP_HEADER = "x-zerolayer-timestamp";

    /** Header with the lowercase hex HMAC-SHA256 of the canonical string. */
    public static final String SIGNATURE_HEADER = "x-zerolayer-signature";

    /** Bytes of the shortest key accepted (128 bits). */
    public static final int MIN_KEY_BYTES = 16;

    private static final String HMAC = "HmacSHA256";
    private static final HexFormat HEX = HexFormat.of();

    private RequestSignature() {}

    /**
     * The string a tenant signs.
     *
     * @param replyTopic the record's {@code kafka_replyTopic} header as text, or null
     * @param value the record's value bytes (null: an empty value)
     */
    public static String canonical(
            String tenantId, String requestId, long timestamp, String replyTopic, byte[] value) {
        return VERSION
                + '\n'
                + tenantId
                + '\n'
                + requestId
                + '\n'
                + timestamp
                + '\n'
                + (replyTopic == null ? "" : replyTopic)
                + '\n'
                + sha256Hex(value == null ? new byte[0] : value);
    }

    /** The lowercase hex HMAC-SHA256 of {@code canonical} under {@code key}. */
    public static String sign(byte[] key, String canonical) {
        return HEX.formatHex(hmac(key, canonical));
    }

    /**
     * Whether {@code signature} (hex, any case) is {@code canonical}'s under {@code key}, compared
     * in constant time.
     */
    public static boolean verifies(byte[] key, String canonical, String signature) {
        byte[] given;
        try {
            given = HEX.parseHex(signature);
        } catch (IllegalArgumentException notHex) {
            return false;
        }
        return MessageDigest.isEqual(hmac(key, canonical), given);
    }

    /** Lowercase hex SHA-256 of {@code bytes} ({@link Sha256#hex(byte[])}). */
    public static String sha256Hex(byte[] bytes) {
        return Sha256.hex(bytes);
    }

    private static byte[] hmac(byte[] key, String canonical) {
        try {
            Mac mac = Mac.getInstance(HMAC);
            mac.init(new SecretKeySpec(key, HMAC));
            return mac.doFinal(canonical.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("This JVM has no " + HMAC, e);
        }
    }
}
