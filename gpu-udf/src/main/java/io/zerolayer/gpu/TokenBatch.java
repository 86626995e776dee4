package io.zerolayer.gpu;

/**
 * Tokenized texts padded to one sequence length, laid out row-major as ONNX Runtime wants them.
 *
 * @param inputIds {@code [batch * seqLen]}
 * @param attentionMask {@code [batch * seqLen]}, 1 for real tokens
 * @param tokenTypeIds {@code [batch * seqLen]}
 * @param realTokens tokens that are not padding, summed over the batch
 */
public record TokenBatch(
        long[] inputIds,
        long[] attentionMask,
        long[] tokenTypeIds,
        int batchSize,
        int seqLen,
        long realTokens) {

    /** Bytes of the three int64 input tensors: what one run copies into the session. */
    public long inputBytes() {
        return 3L * Long.BYTES * batchSize * seqLen;
    }
}
