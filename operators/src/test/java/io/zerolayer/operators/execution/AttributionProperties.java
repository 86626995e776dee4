package io.zerolayer.operators.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Arrays;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

/** Conservation of the largest-remainder split: nothing lost, nothing made up, nothing skewed. */
class AttributionProperties {
    @Property(tries = 2000)
    void sharesAddUpExactlyAndStayWithinOneUnitOfTheExactProportion(
            @ForAll @LongRange(min = 0, max = 4_000_000_000_000_000_000L) long total,
            @ForAll("weights") long[] weights) {
        long[] shares = Attribution.largestRemainder(total, weights);
        assertThat(Arrays.stream(shares).sum()).isEqualTo(total);
        long weightSum = Arrays.stream(weights).sum();
        for (int i = 0; i < weights.length; i++) {
            assertThat(shares[i]).isNotNegative();
            BigDecimal exact =
                    weightSum == 0
                            ? BigDecimal.valueOf(total)
                                    .divide(
                                            BigDecimal.valueOf(weights.length),
                                            MathContext.DECIMAL128)
                            : BigDecimal.valueOf(total)
                                    .multiply(BigDecimal.valueOf(weights[i]))
                                    .divide(BigDecimal.valueOf(weightSum), MathContext.DECIMAL128);
            assertThat(BigDecimal.valueOf(shares[i]).subtract(exact).abs())
                    .isLessThan(BigDecimal.ONE);
        }
    }

    @Property(tries = 500)
    void theSplitIsAFunctionOfItsInputs(
            @ForAll @LongRange(min = 0, max = 1_000_000_000L) long total,
            @ForAll("fewWeights") long[] weights) {
        assertThat(Attribution.largestRemainder(total, weights))
                .containsExactly(Attribution.largestRemainder(total, weights.clone()));
    }

    @Provide
    Arbitrary<long[]> weights() {
        return Arbitraries.longs()
                .between(0, 1_000_000)
                .array(long[].class)
                .ofMinSize(1)
                .ofMaxSize(64);
    }

    @Provide
    Arbitrary<long[]> fewWeights() {
        return Arbitraries.longs().between(0, 1000).array(long[].class).ofMinSize(1).ofMaxSize(16);
    }

    @Test
    void leftoverUnitsGoToTheLargestRemaindersThenToTheEarlierRequest() {
        // 10 over weights 1:1:1 → 3.33 each: the one unit left goes to the first
        assertThat(Attribution.largestRemainder(10, new long[] {1, 1, 1})).containsExactly(4, 3, 3);
        // 10 over 1:2:2 → 2, 4, 4 exactly
        assertThat(Attribution.largestRemainder(10, new long[] {1, 2, 2})).containsExactly(2, 4, 4);
        // 7 over 5:3 → 4.375, 2.625: the second has the larger remainder
        assertThat(Attribution.largestRemainder(7, new long[] {5, 3})).containsExactly(4, 3);
        assertThat(Attribution.largestRemainder(5, new long[] {0, 0})).containsExactly(3, 2);
        assertThatThrownBy(() -> Attribution.largestRemainder(-1, new long[] {1}))
                .hasMessageContaining("negative");
    }
}
