package io.zerolayer.operators.quality;

import java.util.Locale;

/**
 * How good a request's answers must be, as the tier the compiler may choose: the task contract's
 * {@code quality}, raised by the tenant's and by the request's {@code quality} attribute (never
 * lowered). Each floor is a loss against the best tier measured for the task on this device.
 */
public enum QualityFloor {
    /** The cheapest measured tier, whatever its quality. */
    FAST(Double.POSITIVE_INFINITY),
    /** The cheapest tier within one point (0.01) of the best measured for the task. */
    BALANCED(0.01),
    /** The best measured tier for the task (the cheapest of those that tie with it). */
    BEST(0.0);

    private final double allowedLoss;

    QualityFloor(double allowedLoss) {
        this.allowedLoss = allowedLoss;
    }

    /** How far below the best measured quality a tier may be and still be chosen. */
    public double allowedLoss() {
        return allowedLoss;
    }

    /** The higher of two floors; null counts as none. */
    public static QualityFloor max(QualityFloor a, QualityFloor b) {
        if (a == null) {
            return b;
        }
        return b == null || a.compareTo(b) >= 0 ? a : b;
    }

    /**
     * The floor a setting or attribute names ({@code fast}, {@code balanced}, {@code best}, any
     * case); null when it names none.
     */
    public static QualityFloor named(String value) {
        if (value == null) {
            return null;
        }
        try {
            return valueOf(value.strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** As {@link #named}, failing with the floors' names where a setting names none. */
    public static QualityFloor parse(String value) {
        QualityFloor f = named(value);
        if (f == null) {
            throw new IllegalArgumentException(
                    "quality must be fast, balanced or best, not '" + value + "'");
        }
        return f;
    }

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
