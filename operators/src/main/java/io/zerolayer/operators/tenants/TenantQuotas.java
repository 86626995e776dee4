package io.zerolayer.operators.tenants;

import java.util.Locale;

/**
 * How much of the deployment one tenant may hold, and what happens beyond it.
 *
 * @param inFlightPerSlot most of the tenant's requests one executor slot holds, queued or running;
 *     0: no limit
 * @param requestsPerSecond most requests a second the tenant may send, over the whole job; refused
 *     right after their signature is checked, before the prompt is read; 0: no limit
 * @param encoderTokensPerSecond most estimated encoder tokens a second the tenant's requests may
 *     bring, over the whole job; 0: no limit
 * @param overQuota what a request beyond any of them gets
 * @param kafkaProduceBytesPerSecond the broker's {@code producer_byte_rate} quota on the tenant's
 *     principal: what it may append a second, throttled by the broker before the job sees it (set
 *     by {@code zerolayer tenants sync}); 0: no limit
 * @param kafkaRequestPercentage the broker's {@code request_percentage} quota on the tenant's
 *     principal: the share of one broker request-handler thread it may take, in percent; 0: no
 *     limit
 */
public record TenantQuotas(
        int inFlightPerSlot,
        long requestsPerSecond,
        long encoderTokensPerSecond,
        OverQuota overQuota,
        long kafkaProduceBytesPerSecond,
        int kafkaRequestPercentage) {
    /** No limits: where no tenants file is set (and so no quotas), and for bounded runs. */
    public static final TenantQuotas NONE = new TenantQuotas(0, 0, 0, OverQuota.REJECT);

    /** The job's own quotas, with no broker quota. */
    public TenantQuotas(
            int inFlightPerSlot,
            long requestsPerSecond,
            long encoderTokensPerSecond,
            OverQuota overQuota) {
        this(inFlightPerSlot, requestsPerSecond, encoderTokensPerSecond, overQuota, 0, 0);
    }

    /** What a tenant gets when neither its entry nor the file's defaults say. */
    public static final TenantQuotas DEFAULT = new TenantQuotas(1024, 0, 0, OverQuota.REJECT);

    /** What a request over its tenant's quota gets. */
    public enum OverQuota {
        /** Answered REJECTED at once, code ZL095, with when to retry. */
        REJECT,
        /**
         * Not refused: it waits in its slot's queue and runs at its tenant's fair share, behind
         * other tenants' work. Flink cannot hold back one tenant's records on a partition it shares
         * with others, so when the slot's queue is full the whole input waits (Flink's
         * backpressure).
         */
        BACKPRESSURE;

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public TenantQuotas {
        if (inFlightPerSlot < 0
                || requestsPerSecond < 0
                || encoderTokensPerSecond < 0
                || kafkaProduceBytesPerSecond < 0
                || kafkaRequestPercentage < 0) {
            throw new IllegalArgumentException("Quotas are 0 (no limit) or positive");
        }
        java.util.Objects.requireNonNull(overQuota, "overQuota");
    }
}
