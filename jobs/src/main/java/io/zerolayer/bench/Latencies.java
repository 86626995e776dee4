package io.zerolayer.bench;

import java.util.Arrays;

/**
 * Latency percentiles of one phase, in milliseconds, by the nearest-rank method over every measured
 * request (no sampling, no histogram buckets).
 */
record Latencies(int count, double p50, double p95, double p99, double max, double mean) {
    static final Latencies NONE = new Latencies(0, 0, 0, 0, 0, 0);

    static Latencies ofNanos(long[] nanos) {
        if (nanos.length == 0) {
            return NONE;
        }
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        double sum = 0;
        for (long n : sorted) {
            sum += n;
        }
        return new Latencies(
                sorted.length,
                rank(sorted, 0.50),
                rank(sorted, 0.95),
                rank(sorted, 0.99),
                sorted[sorted.length - 1] / 1e6,
                sum / sorted.length / 1e6);
    }

    /**
     * The nearest-rank percentile: the smallest value with at least {@code q} of all at or below.
     */
    static double rank(long[] sorted, double q) {
        int index = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))] / 1e6;
    }
}
