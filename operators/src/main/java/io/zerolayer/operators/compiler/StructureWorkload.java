package io.zerolayer.operators.compiler;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one request of a structure brings to its graph: the encoder sequences it adds, as the cost
 * model counts them, and the runs the executor would cut them into.
 *
 * @param scopeTokens document tokens per scope
 * @param textRuns text runs of the document (each is tokenized by itself)
 * @param querySequences question, label or field sequences encoded with the document
 * @param strategy chunking: sentences or windows
 */
public record StructureWorkload(
        Map<String, Double> scopeTokens, int textRuns, int querySequences, String strategy) {
    public StructureWorkload {
        scopeTokens = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(scopeTokens));
    }

    public double documentTokens() {
        return scopeTokens.values().stream().mapToDouble(Double::doubleValue).sum();
    }

    /** Sequences the encoder runs for one request: chunks plus queries. */
    int sequences() {
        return contentLengths(1).length;
    }

    /**
     * The content lengths (tokens, without [CLS]/[SEP]) of the encoder sequences of {@code
     * requests} requests, ascending. Sentences average {@value #SENTENCE_TOKENS} tokens, spread
     * evenly up to about twice that over all the requests' sentences (requests of one structure
     * bring sentences of the same spread, not of the same lengths); windows are {@link
     * GraphCompiler#WINDOW_TOKENS} long but for each scope's last, which holds the rest; queries
     * are {@link #QUERY_TOKENS} long.
     */
    int[] contentLengths(int requests) {
        int sentences =
                strategy.equals("sentences")
                        ? (int) Math.max(1, Math.ceil(documentTokens() / SENTENCE_TOKENS))
                                * requests
                        : 0;
        int[] windows = strategy.equals("sentences") ? new int[0] : windowLengths();
        int[] lengths = new int[sentences + (windows.length + querySequences) * requests];
        int at = 0;
        for (int i = 0; i < sentences; i++) {
            lengths[at++] =
                    (int) Math.max(1, Math.round(SENTENCE_TOKENS * (2.0 * i + 1) / sentences));
        }
        for (int r = 0; r < requests; r++) {
            System.arraycopy(windows, 0, lengths, at, windows.length);
            at += windows.length;
        }
        java.util.Arrays.fill(lengths, at, lengths.length, QUERY_TOKENS);
        java.util.Arrays.sort(lengths);
        return lengths;
    }

    /** One request's window lengths: full windows, then each scope's last holding the rest. */
    private int[] windowLengths() {
        List<Integer> lengths = new java.util.ArrayList<>();
        for (double scope : scopeTokens.values()) {
            int tokens = (int) Math.max(1, Math.round(scope));
            int windows =
                    1
                            + (int)
                                    Math.ceil(
                                            Math.max(0, tokens - GraphCompiler.WINDOW_TOKENS)
                                                    / (double) GraphCompiler.WINDOW_STRIDE);
            for (int i = 0; i < windows - 1; i++) {
                lengths.add(GraphCompiler.WINDOW_TOKENS);
            }
            lengths.add(
                    Math.min(
                            GraphCompiler.WINDOW_TOKENS,
                            tokens - (windows - 1) * GraphCompiler.WINDOW_STRIDE));
        }
        return lengths.stream().mapToInt(Integer::intValue).toArray();
    }

    static final double CHARS_PER_TOKEN = 4.0;

    /** Average sentence in tokens, for sentence-chunked graphs. */
    static final int SENTENCE_TOKENS = 25;

    /** Characters per label or field name in a {@code <labels>}/{@code <fields>} list. */
    static final double CHARS_PER_QUERY = 16;

    /** Tokens of a question, label or field sequence. */
    static final int QUERY_TOKENS = (int) Math.round(CHARS_PER_QUERY / CHARS_PER_TOKEN);

    /**
     * The encoder runs of {@code requests} requests of workload {@code w} batched together, cut as
     * the executor cuts them ({@link EncoderRuns#cut(int[])}). The more sequences a batch sorts,
     * the narrower the length range each run covers and the less it pads, and the more sequences
     * share each run's fixed cost.
     *
     * <p>Estimating from the runs the executor actually cuts, rather than from one padded run, is
     * what makes a small batch's cost per request come out close to what is measured.
     */
    static List<Run> runs(StructureWorkload w, int requests) {
        int[] all = w.contentLengths(requests);
        List<Run> runs = new java.util.ArrayList<>();
        int from = 0;
        for (int end : EncoderRuns.cut(all)) {
            runs.add(new Run(end - from, all[end - 1] + 2));
            from = end;
        }
        return runs;
    }

    /** One encoder run of an estimate: its sequences, padded to its longest (with [CLS]/[SEP]). */
    record Run(int sequences, int paddedLength) {
        long paddedTokens() {
            return (long) sequences * paddedLength;
        }
    }

    /** Characters a text run of size bucket {@code b} has, taken at the bucket's middle. */
    static double representativeChars(int bucket) {
        return bucket == 0 ? 64 : 128 * Math.pow(2, bucket - 1) * 1.5;
    }

    /** Labels or fields in a list whose text is in size bucket {@code b}. */
    static int representativeQueries(int bucket) {
        return (int) Math.max(1, Math.round(representativeChars(bucket) / CHARS_PER_QUERY));
    }
}
