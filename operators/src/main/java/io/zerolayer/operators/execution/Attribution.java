package io.zerolayer.operators.execution;

/**
 * Splits a batch's integer total (nanoseconds, and later nano-USD) across its requests in
 * proportion to their weights (tokens), by the largest-remainder method: every request gets the
 * floor of its exact share, and the units left over go one each to the largest fractional parts
 * (ties to the earlier request). The shares are integers, each within one unit of the exact
 * proportion, and add up to the total exactly — no rounding drift to bill twice or lose.
 */
public final class Attribution {
    private Attribution() {}

    /**
     * @param total what to split, not negative
     * @param weights each request's weight, not negative; all zero splits evenly
     * @return one share per weight, summing to {@code total}
     */
    public static long[] largestRemainder(long total, long[] weights) {
        if (total < 0) {
            throw new IllegalArgumentException("Cannot split a negative total: " + total);
        }
        int n = weights.length;
        long[] shares = new long[n];
        if (n == 0) {
            if (total != 0) {
                throw new IllegalArgumentException("No one to attribute " + total + " to");
            }
            return shares;
        }
        java.math.BigInteger sum = java.math.BigInteger.ZERO;
        for (long w : weights) {
            if (w < 0) {
                throw new IllegalArgumentException("Weights must not be negative: " + w);
            }
            sum = sum.add(java.math.BigInteger.valueOf(w));
        }
        long[] w = weights;
        if (sum.signum() == 0) {
            w = new long[n];
            java.util.Arrays.fill(w, 1);
            sum = java.math.BigInteger.valueOf(n);
        }
        // exact arithmetic: total × weight can overflow a long
        java.math.BigInteger t = java.math.BigInteger.valueOf(total);
        java.math.BigInteger[] remainders = new java.math.BigInteger[n];
        long given = 0;
        for (int i = 0; i < n; i++) {
            java.math.BigInteger[] qr =
                    t.multiply(java.math.BigInteger.valueOf(w[i])).divideAndRemainder(sum);
            shares[i] = qr[0].longValueExact();
            remainders[i] = qr[1];
            given += shares[i];
        }
        long left = total - given; // fewer than n units
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        java.math.BigInteger[] r = remainders;
        java.util.Arrays.sort(
                order,
                (a, b) -> {
                    int c = r[b].compareTo(r[a]);
                    return c != 0 ? c : Integer.compare(a, b);
                });
        for (int k = 0; k < left; k++) {
            shares[order[k]]++;
        }
        return shares;
    }

    /** Each money component split by {@link #largestRemainder}. */
    static io.zerolayer.operators.costs.PriceSheet.Money[] splitMoney(
            io.zerolayer.operators.costs.PriceSheet.Money total, long[] weights) {
        long[] compute = Attribution.largestRemainder(total.compute(), weights);
        long[] memory = Attribution.largestRemainder(total.memory(), weights);
        long[] pcie = Attribution.largestRemainder(total.pcie(), weights);
        long[] time = Attribution.largestRemainder(total.deviceTime(), weights);
        io.zerolayer.operators.costs.PriceSheet.Money[] out =
                new io.zerolayer.operators.costs.PriceSheet.Money[weights.length];
        for (int i = 0; i < out.length; i++) {
            out[i] =
                    new io.zerolayer.operators.costs.PriceSheet.Money(
                            compute[i], memory[i], pcie[i], time[i]);
        }
        return out;
    }
}
