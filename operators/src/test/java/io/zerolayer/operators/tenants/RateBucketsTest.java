package io.zerolayer.operators.tenants;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RateBucketsTest {
    @Test
    void aTenantGetsItsRateEachSecondAndIsToldWhenMoreComes() {
        RateBuckets buckets = new RateBuckets(2); // half the rate here
        // 2000 tokens/s over the job: 1000 here, a full bucket to start with
        assertThat(buckets.take("acme", 600, 2000, 0)).isZero();
        assertThat(buckets.take("acme", 400, 2000, 0)).isZero();
        assertThat(buckets.take("acme", 500, 2000, 0)).as("empty: 500 ms to refill").isEqualTo(500);
        assertThat(buckets.take("acme", 500, 2000, 499)).isEqualTo(1);
        assertThat(buckets.take("acme", 500, 2000, 500)).isZero();
        // another tenant has a bucket of its own; no quota, no limit
        assertThat(buckets.take("globex", 1000, 2000, 500)).isZero();
        assertThat(buckets.take("initech", 1_000_000, 0, 500)).isZero();
    }

    @Test
    void aRequestLargerThanABucketRunsWhenTheBucketIsFullAndLeavesItInDebt() {
        RateBuckets buckets = new RateBuckets(1);
        assertThat(buckets.take("acme", 5000, 1000, 0)).isZero();
        // 4000 tokens in debt: 4 s to pay off, plus 1 s to hold the next full bucket
        assertThat(buckets.take("acme", 5000, 1000, 0)).isEqualTo(5000);
        assertThat(buckets.take("acme", 5000, 1000, 5000)).isZero();
    }
}
