package io.zerolayer.operators.tenants;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Each tenant's allowance of one rate (encoder tokens a second, or requests a second), as token
 * buckets: a bucket holds at most one second of the tenant's rate and refills continuously. A
 * request is let through when the bucket holds what it brings (or, for a request larger than a full
 * bucket, when the bucket is full), and leaves the bucket that much lower, in debt if need be: a
 * large document is admitted in its turn, never refused for good.
 */
public final class RateBuckets {
    /**
     * Tenants with a bucket; the least recently seen beyond are forgotten (their bucket refills).
     */
    static final int TRACKED_TENANTS = 10_000;

    // {tokens, at millis}; bounded, so tenant ids a request merely claims (auth none) cannot grow
    // it
    private final Map<String, double[]> buckets =
            new LinkedHashMap<>(64, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, double[]> eldest) {
                    return size() > TRACKED_TENANTS;
                }
            };
    private final int shares;

    /**
     * @param shares how many equal parts of each tenant's rate this instance enforces (the
     *     classifier's subtasks, which see a tenant's requests spread evenly by request id)
     */
    public RateBuckets(int shares) {
        this.shares = Math.max(1, shares);
    }

    /**
     * Takes {@code tokens} from the tenant's bucket if it holds them.
     *
     * @param perSecond the tenant's quota over the whole job; 0 for none
     * @return 0 when taken, else how many milliseconds until the bucket holds them
     */
    public long take(String tenant, long tokens, long perSecond, long nowMillis) {
        if (perSecond <= 0 || tokens <= 0) {
            return 0;
        }
        double rate = (double) perSecond / shares; // tokens a second here
        double capacity = Math.max(1, rate);
        double[] b = buckets.computeIfAbsent(tenant, t -> new double[] {capacity, nowMillis});
        b[0] = Math.min(capacity, b[0] + (nowMillis - b[1]) * rate / 1000.0);
        b[1] = nowMillis;
        double needed = Math.min(tokens, capacity);
        if (b[0] >= needed) {
            b[0] -= tokens;
            return 0;
        }
        return Math.max(1, (long) Math.ceil((needed - b[0]) * 1000.0 / rate));
    }
}
