package io.zerolayer.operators.quality;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class IntervalTest {
    @Test
    void wilsonIntervalsMatchPublishedValues() {
        // Newcombe (1998), table I: 81 of 263 → 0.2553 to 0.3662
        Interval i = Interval.proportion(81, 263);
        assertThat(i.value()).isCloseTo(0.3080, within(1e-4));
        assertThat(i.low()).isCloseTo(0.2553, within(1e-4));
        assertThat(i.high()).isCloseTo(0.3662, within(1e-4));
        // all right still leaves room below: 10 of 10 → 0.7225 to 1
        Interval all = Interval.proportion(10, 10);
        assertThat(all.low()).isCloseTo(0.7225, within(1e-4));
        assertThat(all.high()).isCloseTo(1.0, within(1e-12));
    }

    @Test
    void aMeansIntervalIsTwoStandardErrorsWide() {
        Interval m = Interval.mean(new double[] {1, 2, 3, 4});
        // sd 1.291, se 0.6455
        assertThat(m.value()).isEqualTo(2.5);
        assertThat(m.high() - m.value()).isCloseTo(1.959964 * 0.645497, within(1e-5));
        assertThat(m.n()).isEqualTo(4);
    }
}
