package io.zerolayer.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class LatenciesTest {
    @Test
    void nearestRankPercentilesOfOneToAHundredMilliseconds() {
        long[] nanos = new long[100];
        for (int i = 0; i < 100; i++) {
            nanos[99 - i] = (i + 1) * 1_000_000L; // reversed: order must not matter
        }
        Latencies l = Latencies.ofNanos(nanos);
        assertThat(l.count()).isEqualTo(100);
        assertThat(l.p50()).isEqualTo(50.0);
        assertThat(l.p95()).isEqualTo(95.0);
        assertThat(l.p99()).isEqualTo(99.0);
        assertThat(l.max()).isEqualTo(100.0);
        assertThat(l.mean()).isCloseTo(50.5, within(1e-9));
    }

    @Test
    void percentilesAreOrderedAndBoundedByTheSample() {
        SplittableRandom random = new SplittableRandom(5);
        long[] nanos = new long[997];
        long min = Long.MAX_VALUE;
        for (int i = 0; i < nanos.length; i++) {
            nanos[i] = 1 + random.nextLong(5_000_000_000L);
            min = Math.min(min, nanos[i]);
        }
        Latencies l = Latencies.ofNanos(nanos);
        assertThat(l.p50()).isGreaterThanOrEqualTo(min / 1e6);
        assertThat(l.p95()).isGreaterThanOrEqualTo(l.p50());
        assertThat(l.p99()).isGreaterThanOrEqualTo(l.p95());
        assertThat(l.max()).isGreaterThanOrEqualTo(l.p99());
    }

    @Test
    void noSamplesGiveZeros() {
        assertThat(Latencies.ofNanos(new long[0])).isEqualTo(Latencies.NONE);
        assertThat(Latencies.ofNanos(new long[] {3_000_000}).p99()).isEqualTo(3.0);
    }
}
