package io.zerolayer.gpu;

import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectStreamException;
import java.io.Serializable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * One sentence encoder of the model catalog ({@link ModelCatalog}): what it is (family, precision,
 * shape), how its output becomes one vector a text (pooling, prefixes), and where its ONNX weights
 * and {@code tokenizer.json} are. The four shipped encoders are constants; a user's own come from a
 * catalog file and are found by {@link #byId} like them.
 *
 * <p>Equal by id: an id names one set of weights, which {@link #sha256()} pins.
 *
 * @param id stable id used in graph descriptors and cost records
 * @param family the architecture and training the precisions of one model share
 * @param precision {@code fp32}, {@code fp16} or {@code int8}
 * @param layers transformer layers
 * @param hiddenSize model width, the length of every vector it returns
 * @param ffnSize feed-forward inner size
 * @param pooling how the last hidden state becomes one vector a text
 * @param normalize whether that vector is L2-normalised
 * @param queryPrefix text put before a search query (a question) before it is tokenized
 * @param passagePrefix text put before each passage (a document chunk)
 * @param onnx the weights: {@code classpath:/…} or a file path
 * @param tokenizer the {@code tokenizer.json}: {@code classpath:/…} or a file path
 * @param sha256 hex SHA-256 of the weights; checked when they are read
 * @param source where the weights come from (a Maven package, a model card)
 */
public record EncoderModel(
        String id,
        String family,
        String precision,
        int layers,
        int hiddenSize,
        int ffnSize,
        PoolingMode pooling,
        boolean normalize,
        String queryPrefix,
        String passagePrefix,
        String onnx,
        String tokenizer,
        String sha256,
        String source)
        implements Serializable {

    /** How an encoder's last hidden state becomes one vector a text. */
    public enum PoolingMode {
        /** The mean over the text's real tokens (sentence-transformers' MiniLM). */
        MEAN,
        /** The first token's state, {@code [CLS]} (BGE). */
        CLS
    }

    public static final EncoderModel MINILM_L6_V2_FP32 = ModelCatalog.shipped("minilm-l6-v2-fp32");
    public static final EncoderModel MINILM_L6_V2_INT8 = ModelCatalog.shipped("minilm-l6-v2-int8");
    public static final EncoderModel BGE_SMALL_EN_V15_FP32 =
            ModelCatalog.shipped("bge-small-en-v1.5-fp32");
    public static final EncoderModel BGE_SMALL_EN_V15_INT8 =
            ModelCatalog.shipped("bge-small-en-v1.5-int8");

    private static final String CLASSPATH = "classpath:";

    public EncoderModel {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(pooling, "pooling");
        if (layers <= 0 || hiddenSize <= 0 || ffnSize <= 0) {
            throw new IllegalArgumentException(
                    "Encoder " + id + ": layers, hidden-size and ffn-size must be positive");
        }
        queryPrefix = queryPrefix == null ? "" : queryPrefix;
        passagePrefix = passagePrefix == null ? "" : passagePrefix;
    }

    /** Every encoder known to this JVM: the shipped ones, then those a catalog file added. */
    public static java.util.List<EncoderModel> values() {
        return ModelCatalog.all();
    }

    /** The encoder of {@code id}, shipped or added; a clear error naming the known ids if none. */
    public static EncoderModel byId(String id) {
        return ModelCatalog.byId(id);
    }

    /**
     * FLOPs of one forward pass over {@code batch × seqLen} tokens (padding included, since it is
     * computed), derived from the catalog's shape: per token and layer, the Q/K/V/O projections
     * (4d² multiply-adds) and the feed-forward block (2·d·ffn) plus attention scores and the
     * weighted sum (2·seqLen·d); a multiply-add is 2 FLOPs. Embedding lookups and layer norms are
     * left out.
     */
    public long forwardFlops(int batch, int seqLen) {
        long d = hiddenSize;
        long perTokenLayer = 2 * (4 * d * d + 2 * d * ffnSize + 2L * seqLen * d);
        return layers * (long) batch * seqLen * perTokenLayer;
    }

    /** Whether the weights ship inside a jar (rather than a user's file). */
    public boolean shipped() {
        return onnx.startsWith(CLASSPATH);
    }

    /** Opens the ONNX weights; a clear error naming the model if they are missing. */
    public InputStream openWeights() {
        return open(onnx, "weights");
    }

    /** Opens the {@code tokenizer.json}; a clear error naming the model if it is missing. */
    public InputStream openTokenizer() {
        return open(tokenizer, "tokenizer");
    }

    /** Where the weights are, for messages. */
    public String onnxLocation() {
        return onnx;
    }

    private InputStream open(String location, String what) {
        if (location.startsWith(CLASSPATH)) {
            String resource = location.substring(CLASSPATH.length());
            InputStream in = EncoderModel.class.getResourceAsStream(resource);
            if (in == null) {
                throw new EncoderException(
                        "The "
                                + what
                                + " of encoder "
                                + id
                                + " are not on the classpath at "
                                + resource
                                + (source.isBlank() ? "" : ": add " + source));
            }
            return in;
        }
        try {
            return Files.newInputStream(Path.of(location));
        } catch (IOException e) {
            throw new EncoderException(
                    "Cannot read the " + what + " of encoder " + id + " at " + location, e);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof EncoderModel other && other.id.equals(id);
    }

    @Override
    public int hashCode() {
        return id.hashCode();
    }

    @Override
    public String toString() {
        return id;
    }

    /** A deserialised encoder is the one this JVM's catalog has under its id. */
    private Object readResolve() throws ObjectStreamException {
        return ModelCatalog.knows(id) ? byId(id) : this;
    }
}
