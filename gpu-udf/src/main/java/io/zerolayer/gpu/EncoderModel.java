package io.zerolayer.gpu;

/**
 * The sentence encoders ZeroLayer ships. Both are all-MiniLM-L6-v2 (6 layers, hidden size 384,
 * ~22.7 M parameters), taken from the langchain4j Maven packages; only their {@code .onnx} and
 * {@code tokenizer.json} resources are used.
 */
public enum EncoderModel {
    MINILM_L6_V2_FP32(
            "minilm-l6-v2-fp32",
            "fp32",
            "/all-minilm-l6-v2.onnx",
            "/all-minilm-l6-v2-tokenizer.json",
            90_387_606L),
    MINILM_L6_V2_INT8(
            "minilm-l6-v2-int8",
            "int8",
            "/all-minilm-l6-v2-q.onnx",
            "/all-minilm-l6-v2-q-tokenizer.json",
            22_972_370L);

    /** Hidden size of both variants. */
    public static final int HIDDEN_SIZE = 384;

    /** Transformer layers of both variants. */
    public static final int LAYERS = 6;

    /** Feed-forward inner size of both variants. */
    public static final int FFN_SIZE = 1536;

    /**
     * FLOPs of one forward pass over {@code batch × seqLen} tokens (padding included, since it is
     * computed), derived from the architecture: per token and layer, the Q/K/V/O projections (4d²
     * multiply-adds) and the feed-forward block (2·d·ffn) plus attention scores and the weighted
     * sum (2·seqLen·d); a multiply-add is 2 FLOPs. Embedding lookups and layer norms are left out.
     */
    public static long forwardFlops(int batch, int seqLen) {
        long d = HIDDEN_SIZE;
        long perTokenLayer = 2 * (4 * d * d + 2 * d * FFN_SIZE + 2L * seqLen * d);
        return LAYERS * (long) batch * seqLen * perTokenLayer;
    }

    private final long weightBytes;
    private final String id;
    private final String precision;
    private final String onnxResource;
    private final String tokenizerResource;

    EncoderModel(
            String id,
            String precision,
            String onnxResource,
            String tokenizerResource,
            long weightBytes) {
        this.weightBytes = weightBytes;
        this.id = id;
        this.precision = precision;
        this.onnxResource = onnxResource;
        this.tokenizerResource = tokenizerResource;
    }

    /** Stable id used in graph descriptors and cost records. */
    public String id() {
        return id;
    }

    /** Size of the shipped .onnx file: what one forward pass reads at least once. */
    public long weightBytes() {
        return weightBytes;
    }

    public String precision() {
        return precision;
    }

    public String onnxResource() {
        return onnxResource;
    }

    String tokenizerResource() {
        return tokenizerResource;
    }

    public static EncoderModel byId(String id) {
        for (EncoderModel m : values()) {
            if (m.id.equals(id)) {
                return m;
            }
        }
        throw new IllegalArgumentException(
                "Unknown encoder model '" + id + "'; known: minilm-l6-v2-fp32, minilm-l6-v2-int8");
    }
}
