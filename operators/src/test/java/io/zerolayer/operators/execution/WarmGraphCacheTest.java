package io.zerolayer.operators.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class WarmGraphCacheTest {
    private final AtomicLong now = new AtomicLong(1_000);

    @Test
    void leastRecentlyUsedIsEvictedBeyondTheEntryBound() {
        WarmGraphCache cache = new WarmGraphCache(2, 1 << 20, 60_000, now::get);
        cache.put("a", null, 10);
        cache.put("b", null, 10);
        cache.get("a");
        cache.put("c", null, 10);
        assertThat(cache.graphIds()).containsExactly("a", "c");
        assertThat(cache.bytes()).isEqualTo(20);
    }

    @Test
    void theByteBoundEvictsToo() {
        WarmGraphCache cache = new WarmGraphCache(100, 25, 60_000, now::get);
        cache.put("a", null, 10);
        cache.put("b", null, 10);
        cache.put("c", null, 10);
        assertThat(cache.graphIds()).containsExactly("b", "c");
        cache.put("huge", null, 1_000);
        assertThat(cache.graphIds()).containsExactly("huge"); // kept: it is the one in use
    }

    @Test
    void idleGraphsExpireAndHitsAreCounted() {
        WarmGraphCache cache = new WarmGraphCache(10, 1 << 20, 5_000, now::get);
        cache.put("a", null, 1);
        cache.put("b", null, 1);
        now.addAndGet(3_000);
        assertThat(cache.get("a")).isNull(); // null graph stored, but a hit all the same
        assertThat(cache.hits()).isEqualTo(1);
        now.addAndGet(3_000); // b idle 6 s, a idle 3 s
        cache.get("zzz");
        assertThat(cache.graphIds()).containsExactly("a");
        assertThat(cache.misses()).isEqualTo(1);
        assertThat(cache.hitRatio()).isEqualTo(0.5);
        cache.clear();
        assertThat(cache.size()).isZero();
        assertThat(cache.bytes()).isZero();
    }

    @Test
    void boundsMustBePositive() {
        assertThatThrownBy(() -> new WarmGraphCache(0, 1, 1, now::get))
                .hasMessageContaining("entries 0");
    }
}
