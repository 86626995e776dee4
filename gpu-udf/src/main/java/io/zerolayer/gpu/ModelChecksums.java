package io.zerolayer.gpu;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * SHA-256 of each shipped model's weights, computed once per JVM by streaming the resource (no
 * session needed). Graph ids include them, so a changed model can never reuse an old graph.
 */
public final class ModelChecksums {
    private static final Map<EncoderModel, String> CACHE =
            Collections.synchronizedMap(new EnumMap<>(EncoderModel.class));

    private ModelChecksums() {}

    public static String of(EncoderModel model) {
        return CACHE.computeIfAbsent(model, ModelChecksums::compute);
    }

    /**
     * The checksum of weights already in memory (a session being opened): computed from them, not
     * by reading the resource again, and only if this JVM has not computed it yet.
     */
    static String of(EncoderModel model, byte[] weights) {
        return CACHE.computeIfAbsent(model, m -> SentenceEncoder.sha256(weights));
    }

    /** Model id → checksum for every shipped model, sorted by id. */
    public static SortedMap<String, String> all() {
        SortedMap<String, String> out = new TreeMap<>();
        for (EncoderModel m : EncoderModel.values()) {
            out.put(m.id(), of(m));
        }
        return out;
    }

    private static String compute(EncoderModel model) {
        try (InputStream in = ModelChecksums.class.getResourceAsStream(model.onnxResource())) {
            if (in == null) {
                throw new EncoderException(
                        "Weights of "
                                + model.id()
                                + " not on the classpath at "
                                + model.onnxResource());
            }
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            try (DigestInputStream d = new DigestInputStream(in, digest)) {
                d.transferTo(OutputStreamSink.INSTANCE);
            }
            return HexFormat.of().formatHex(digest.digest());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static final class OutputStreamSink extends java.io.OutputStream {
        static final OutputStreamSink INSTANCE = new OutputStreamSink();

        @Override
        public void write(int b) {}

        @Override
        public void write(byte[] b, int off, int len) {}
    }
}
