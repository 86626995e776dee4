package io.zerolayer.operators.compiler;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ToIntFunction;

/**
 * Cuts a batch's sequences, sorted by length, into encoder runs. A run pads every sequence to its
 * longest, and each run has a fixed cost (a session call, reading the weights), so the cut
 * minimises {@code Σ (overhead + sequences × (longest + 2))} over runs of consecutive sequences of
 * at most {@code maxPerRun}: short queries no longer ride in a run padded to a chunk's length, and
 * sequences of one length still share runs as long as they can.
 *
 * <p>Cutting by cost rather than every {@code maxPerRun} sequences saves most where lengths differ
 * most: small batches, and requests whose queries are much shorter than their chunks. The result
 * hardly depends on the overhead chosen (16 to 128 tokens a run cut alike), so one figure serves
 * every model.
 */
public final class EncoderRuns {
    /** A run's fixed cost, in padded tokens. */
    public static final int RUN_OVERHEAD_TOKENS = 32;

    /** Most sequences in one encoder run. */
    public static final int MAX_SEQUENCES_PER_RUN = 64;

    private EncoderRuns() {}

    /**
     * Where the runs end.
     *
     * @param sortedLengths the sequences' content lengths (without [CLS]/[SEP]), ascending
     * @param maxPerRun most sequences in one run
     * @param overheadTokens a run's fixed cost, in padded tokens
     * @return each run's end (exclusive) in {@code sortedLengths}, ascending; the last is its
     *     length
     */
    public static int[] cut(int[] sortedLengths, int maxPerRun, int overheadTokens) {
        return cut(sortedLengths, maxPerRun, overheadTokens, Long.MAX_VALUE);
    }

    /**
     * Where the runs end, no run holding more than {@code maxRunTokens} padded tokens (sequences ×
     * (longest + 2)) unless it is a single sequence: a bound on a run's time, so that other work
     * can run between two runs of a long document.
     *
     * @param maxRunTokens most padded tokens in a run of several sequences; {@link Long#MAX_VALUE}
     *     for no bound
     */
    public static int[] cut(
            int[] sortedLengths, int maxPerRun, int overheadTokens, long maxRunTokens) {
        if (maxPerRun < 1) {
            throw new IllegalArgumentException("maxPerRun must be at least 1, was " + maxPerRun);
        }
        int n = sortedLengths.length;
        for (int i = 1; i < n; i++) {
            if (sortedLengths[i] < sortedLengths[i - 1]) {
                throw new IllegalArgumentException("Lengths must be sorted ascending");
            }
        }
        long[] best = new long[n + 1]; // cost of the first j sequences
        int[] start = new int[n + 1]; // where the last run of that best cut starts
        for (int j = 1; j <= n; j++) {
            best[j] = Long.MAX_VALUE;
            long padded = sortedLengths[j - 1] + 2L; // the run's longest, with [CLS]/[SEP]
            // from the shortest last run back: of equal cuts, the one filling the first runs
            for (int i = j - 1; i >= Math.max(0, j - maxPerRun); i--) {
                if (j - i > 1 && (j - i) * padded > maxRunTokens) {
                    break; // an earlier start only makes the run longer
                }
                long cost = best[i] + overheadTokens + (j - i) * padded;
                if (cost < best[j]) {
                    best[j] = cost;
                    start[j] = i;
                }
            }
        }
        int[] ends = new int[n];
        int runs = 0;
        for (int j = n; j > 0; j = start[j]) {
            ends[runs++] = j;
        }
        int[] ascending = new int[runs];
        for (int r = 0; r < runs; r++) {
            ascending[r] = ends[runs - 1 - r];
        }
        return ascending;
    }

    /** The cost {@link #cut} minimises, of the runs ending at {@code ends}. */
    public static long cost(int[] sortedLengths, int[] ends, int overheadTokens) {
        long total = 0;
        int from = 0;
        for (int end : ends) {
            total += overheadTokens + (long) (end - from) * (sortedLengths[end - 1] + 2);
            from = end;
        }
        return total;
    }

    /**
     * Where the executor's runs end: {@link #cut} with at most {@value #MAX_SEQUENCES_PER_RUN} a
     * run and {@value #RUN_OVERHEAD_TOKENS} tokens of overhead. The compiler's cost model cuts its
     * estimates with this too.
     */
    public static int[] cut(int[] sortedLengths) {
        return cut(sortedLengths, MAX_SEQUENCES_PER_RUN, RUN_OVERHEAD_TOKENS);
    }

    /**
     * {@code sorted} cut into the executor's runs ({@link #cut(int[])}): views of it, in order.
     *
     * @param length a sequence's content length (without [CLS]/[SEP]); ascending along {@code
     *     sorted}
     */
    public static <T> List<List<T>> split(List<T> sorted, ToIntFunction<T> length) {
        return split(sorted, length, Long.MAX_VALUE);
    }

    /**
     * {@link #split(List, ToIntFunction)}, no run of several sequences over {@code maxRunTokens}
     * padded tokens.
     */
    public static <T> List<List<T>> split(
            List<T> sorted, ToIntFunction<T> length, long maxRunTokens) {
        int[] lengths = sorted.stream().mapToInt(length).toArray();
        List<List<T>> runs = new ArrayList<>();
        int from = 0;
        for (int end : cut(lengths, MAX_SEQUENCES_PER_RUN, RUN_OVERHEAD_TOKENS, maxRunTokens)) {
            runs.add(sorted.subList(from, end));
            from = end;
        }
        return runs;
    }
}
