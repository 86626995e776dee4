package io.zerolayer.gpu;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Lowercase hex SHA-256: the one way this module hashes ids, contents and weights. {@code gpu-udf}
 * stands alone (the device-check bundle runs it without the rest), so it does not use its twin
 * {@code io.zerolayer.schemas.Sha256}.
 */
public final class Sha256 {
    private Sha256() {}

    /** A fresh SHA-256 digest, for content read in pieces. */
    public static MessageDigest digest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("This JVM has no SHA-256", e);
        }
    }

    /** Hex SHA-256 of {@code bytes}. */
    public static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(digest().digest(bytes));
    }

    /** Hex SHA-256 of {@code text} as UTF-8. */
    public static String hex(String text) {
        return hex(text.getBytes(StandardCharsets.UTF_8));
    }

    /** Hex SHA-256 of everything {@code in} holds, read to its end (not closed). */
    public static String hex(InputStream in) throws IOException {
        MessageDigest digest = digest();
        new DigestInputStream(in, digest).transferTo(OutputStream.nullOutputStream());
        return HexFormat.of().formatHex(digest.digest());
    }
}
