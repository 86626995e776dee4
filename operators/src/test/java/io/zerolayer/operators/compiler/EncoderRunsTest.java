package io.zerolayer.operators.compiler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Cutting sorted sequences into encoder runs: padding against each run's fixed cost. */
class EncoderRunsTest {
    private static final int OVERHEAD = EncoderRuns.RUN_OVERHEAD_TOKENS;

    @Test
    void sequencesOfOneLengthFillRunsUpToTheLimit() {
        int[] lengths = new int[130];
        Arrays.fill(lengths, 20);
        assertThat(EncoderRuns.cut(lengths, 64, OVERHEAD)).containsExactly(64, 128, 130);
    }

    @Test
    void shortQueriesAreNotPaddedToTheChunksLength() {
        int[] lengths = new int[64];
        Arrays.fill(lengths, 0, 32, 3); // labels
        Arrays.fill(lengths, 32, 64, 120); // chunks
        int[] ends = EncoderRuns.cut(lengths, 64, OVERHEAD);
        assertThat(ends).containsExactly(32, 64);
        assertThat(EncoderRuns.cost(lengths, ends, OVERHEAD))
                .isLessThan(EncoderRuns.cost(lengths, everyN(64, 64), OVERHEAD) * 6 / 10);
    }

    @Test
    void splitGivesTheSequencesOfEachRunInOrder() {
        List<String> sorted = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            sorted.add("l" + i); // labels, 3 tokens
        }
        for (int i = 0; i < 3; i++) {
            sorted.add("chunk-" + i); // chunks, 120 tokens
        }
        assertThat(EncoderRuns.split(sorted, s -> s.startsWith("l") ? 3 : 120))
                .containsExactly(
                        List.of("l0", "l1", "l2"), List.of("chunk-0", "chunk-1", "chunk-2"));
    }

    @Test
    void aRunsFixedCostKeepsNearlyEqualLengthsTogether() {
        int[] lengths = {10, 10, 11, 11, 12, 12, 13, 13};
        assertThat(EncoderRuns.cut(lengths, 64, OVERHEAD)).containsExactly(8);
        // free runs: nothing is padded
        assertThat(EncoderRuns.cost(lengths, EncoderRuns.cut(lengths, 64, 0), 0))
                .isEqualTo(Arrays.stream(lengths).mapToLong(l -> l + 2).sum());
        assertThat(EncoderRuns.cut(new int[] {7}, 64, OVERHEAD)).containsExactly(1);
        assertThat(EncoderRuns.cut(new int[0], 64, OVERHEAD)).isEmpty();
    }

    @Test
    void theCutNeverCostsMoreThanFixedRunsAndCoversEverySequenceOnce() {
        Random random = new Random(7);
        for (int trial = 0; trial < 200; trial++) {
            int[] lengths = new int[1 + random.nextInt(300)];
            for (int i = 0; i < lengths.length; i++) {
                lengths[i] = random.nextInt(4) == 0 ? 1 + random.nextInt(254) : random.nextInt(20);
            }
            Arrays.sort(lengths);
            int maxPerRun = 1 + random.nextInt(64);
            int[] ends = EncoderRuns.cut(lengths, maxPerRun, OVERHEAD);
            assertThat(ends[ends.length - 1]).isEqualTo(lengths.length);
            int from = 0;
            for (int end : ends) {
                assertThat(end - from).isBetween(1, maxPerRun);
                from = end;
            }
            assertThat(EncoderRuns.cost(lengths, ends, OVERHEAD))
                    .isLessThanOrEqualTo(
                            EncoderRuns.cost(lengths, everyN(lengths.length, maxPerRun), OVERHEAD));
        }
    }

    @Test
    void unsortedLengthsOrNoRoomInARunAreRefused() {
        assertThatThrownBy(() -> EncoderRuns.cut(new int[] {5, 3}, 64, OVERHEAD))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sorted");
        assertThatThrownBy(() -> EncoderRuns.cut(new int[] {3}, 0, OVERHEAD))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** Runs of {@code maxPerRun} in a row, the last shorter: the cut before this one. */
    private static int[] everyN(int count, int maxPerRun) {
        int[] ends = new int[(count + maxPerRun - 1) / maxPerRun];
        Arrays.setAll(ends, r -> Math.min(count, (r + 1) * maxPerRun));
        return ends;
    }

    @Test
    void aRunHoldsNoMorePaddedTokensThanItsBoundUnlessItIsOneSequence() {
        int[] lengths = new int[40];
        java.util.Arrays.fill(lengths, 0, 30, 126); // 128 padded
        java.util.Arrays.fill(lengths, 30, 40, 510); // longer than the bound alone
        int[] ends = EncoderRuns.cut(lengths, 64, 32, 512);
        int from = 0;
        for (int end : ends) {
            long padded = (long) (end - from) * (lengths[end - 1] + 2);
            if (end - from > 1) {
                assertThat(padded).isLessThanOrEqualTo(512);
            }
            from = end;
        }
        assertThat(ends).hasSize(30 / 4 + 1 + 10).endsWith(40);
        // unbounded, the same lengths need far fewer runs
        assertThat(EncoderRuns.cut(lengths, 64, 32, Long.MAX_VALUE).length).isLessThan(5);
    }
}
