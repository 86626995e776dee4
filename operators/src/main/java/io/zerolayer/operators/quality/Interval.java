package io.zerolayer.operators.quality;

/**
 * A measured figure with its 95 % confidence interval.
 *
 * @param value the point estimate
 * @param low the interval's lower end
 * @param high its upper end
 * @param n how many observations it rests on
 */
public record Interval(double value, double low, double high, int n) {
    private static final double Z = 1.959964;

    /**
     * A proportion of {@code successes} in {@code n} with the Wilson score interval, which stays
     * inside [0, 1] and behaves at small n and near 0 or 1, where the normal one does not.
     */
    public static Interval proportion(int successes, int n) {
        if (n == 0) {
            return new Interval(Double.NaN, Double.NaN, Double.NaN, 0);
        }
        double p = (double) successes / n;
        double z2 = Z * Z;
        double centre = (p + z2 / (2.0 * n)) / (1 + z2 / n);
        double half = Z * Math.sqrt(p * (1 - p) / n + z2 / (4.0 * n * n)) / (1 + z2 / n);
        return new Interval(p, Math.max(0, centre - half), Math.min(1, centre + half), n);
    }

    /** The mean of {@code values} with the normal interval, mean ± 1.96 standard errors. */
    public static Interval mean(double[] values) {
        int n = values.length;
        if (n == 0) {
            return new Interval(Double.NaN, Double.NaN, Double.NaN, 0);
        }
        double sum = 0;
        for (double v : values) {
            sum += v;
        }
        double mean = sum / n;
        double squares = 0;
        for (double v : values) {
            squares += (v - mean) * (v - mean);
        }
        double se = n > 1 ? Math.sqrt(squares / (n - 1) / n) : 0;
        return new Interval(mean, mean - Z * se, mean + Z * se, n);
    }
}
