package io.zerolayer.operators.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class EmbeddingCacheTest {
    private static final long[] IDS = {101, 2023, 2003};
    private static final float[] VECTOR = {0.1f, 0.2f, 0.3f};

    @Nested
    class Entries {
        private final EmbeddingCache cache = new EmbeddingCache(1 << 20);

        @Test
        void aSequenceIsFoundByItsContentNotItsArray() {
            cache.put("acme", "minilm", "sum1", IDS, VECTOR);
            assertThat(cache.get("acme", "minilm", "sum1", IDS.clone())).containsExactly(VECTOR);
            assertThat(cache.get("acme", "minilm", "sum1", new long[] {101, 2023}))
                    .as("another sequence")
                    .isNull();
            assertThat(cache.hits()).isEqualTo(1);
            assertThat(cache.misses()).isEqualTo(1);
        }

        @Test
        void whatGoesInOrComesOutIsACopy() {
            long[] ids = IDS.clone();
            float[] vector = VECTOR.clone();
            cache.put("acme", "minilm", "sum1", ids, vector);
            ids[0] = 7;
            vector[0] = 9f;
            float[] read = cache.get("acme", "minilm", "sum1", IDS);
            assertThat(read).containsExactly(VECTOR);
            read[1] = 9f;
            assertThat(cache.get("acme", "minilm", "sum1", IDS)).containsExactly(VECTOR);
        }

        @Test
        void anotherTenantOrModelDoesNotHit() {
            cache.put("acme", "minilm", "sum1", IDS, VECTOR);
            assertThat(cache.get("globex", "minilm", "sum1", IDS)).isNull();
            assertThat(cache.get("", "minilm", "sum1", IDS)).as("the shared scope").isNull();
            assertThat(cache.get("acme", "minilm-int8", "sum2", IDS)).isNull();
        }

        @Test
        void aModelWithOtherWeightsEmptiesTheCache() {
            cache.put("acme", "minilm", "sum1", IDS, VECTOR);
            cache.put("acme", "bge", "sum9", IDS, VECTOR);
            assertThat(cache.get("acme", "minilm", "sum2", IDS)).isNull();
            assertThat(cache.get("acme", "bge", "sum9", IDS)).as("cleared with the rest").isNull();
            assertThat(cache.size()).isZero();
        }

        @Test
        void clearDropsEveryEntry() {
            cache.put("acme", "minilm", "sum1", IDS, VECTOR);
            cache.clear();
            assertThat(cache.get("acme", "minilm", "sum1", IDS)).isNull();
            assertThat(cache.bytes()).isZero();
        }
    }

    @Test
    void itHoldsNoMoreBytesThanItsBoundAndCountsEvictions() {
        EmbeddingCache cache = new EmbeddingCache(64 << 10);
        float[] vector = new float[384];
        for (int i = 0; i < 200; i++) {
            cache.put("acme", "minilm", "sum1", new long[] {i, i + 1, i + 2}, vector);
        }
        // an entry of 3 ids and 384 floats weighs about 1.7 KB: fewer than 40 fit in 64 KiB
        assertThat(cache.bytes()).isPositive().isLessThanOrEqualTo(64 << 10);
        assertThat(cache.size()).isLessThan(200);
        assertThat(cache.evictions()).isEqualTo(200 - cache.size());
    }

    @Test
    void aSizeOfZeroIsNoCache() {
        assertThatThrownBy(() -> new EmbeddingCache(0)).hasMessageContaining("positive");
        assertThat(EmbeddingCache.forTaskManager(EmbeddingCache.Settings.OFF)).isNull();
    }

    @Test
    void aRequestsScopeIsItsTenantOrEveryonesAndLevel3IsLeftOutUnlessIncluded() {
        var tenant = new EmbeddingCache.Settings(1 << 20, EmbeddingCache.Scope.TENANT, false);
        assertThat(tenant.scopeOf("acme", false)).isEqualTo("acme");
        assertThat(tenant.scopeOf("acme", true)).isNull();
        var shared = new EmbeddingCache.Settings(1 << 20, EmbeddingCache.Scope.SHARED, true);
        assertThat(shared.scopeOf("acme", false)).isEmpty();
        assertThat(shared.scopeOf("acme", true)).isEmpty();
        assertThat(EmbeddingCache.Settings.OFF.scopeOf("acme", false)).isNull();
    }
}
