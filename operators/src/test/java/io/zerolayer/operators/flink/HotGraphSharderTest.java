package io.zerolayer.operators.flink;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class HotGraphSharderTest {
    private static HotGraphSharder sharder(int slots, double perShard, int observers) {
        HotGraphSharder s = new HotGraphSharder(slots, 128, perShard, 1e12);
        s.open(observers);
        return s;
    }

    @Test
    void aTenantHeavyEnoughToFillBatchesAloneGetsKeysOfItsOwnAndTheOthersKeepTheShared() {
        // a slot a shard by load, and a graph slow enough that the requests' rate never asks
        HotGraphSharder s = new HotGraphSharder(2, 128, 1e12, 0.5);
        s.open(1);
        Set<String> quiet = new HashSet<>();
        Set<String> flood = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            long now = i * 10L; // 100 requests a second of 30 ms: 3 slots of load
            String key = s.shardKey("g", "flood", 30, true, now);
            if (now >= 200) { // 17 requests of 30 ms show half a slot of load
                flood.add(key);
            }
            if (i % 20 == 0) {
                quiet.add(s.shardKey("g", "quiet", 30, true, now)); // 5/s: 0.15 of a slot
            }
        }
        assertThat(quiet).allSatisfy(k -> assertThat(k).startsWith("g#"));
        assertThat(flood)
                .as("keys of its own once its load shows")
                .isNotEmpty()
                .allSatisfy(k -> assertThat(k).startsWith("g@flood#"));
    }

    @Test
    void aColdGraphStaysOnOneSlot() {
        HotGraphSharder s = sharder(4, 25, 1);
        Set<String> keys = new HashSet<>();
        for (int i = 0; i < 10; i++) {
            keys.add(s.shardKey("cold", 100, 1_000 + i * 120)); // 10 requests over 1.2 s: ~8/s
        }
        assertThat(keys).hasSize(1);
        assertThat(s.shards("cold", 2_200)).isEqualTo(1);
    }

    @Test
    void aHotGraphSpreadsOverDistinctSlotsUpToAllOfThem() {
        for (int slots : new int[] {2, 3, 4, 8}) {
            HotGraphSharder s = sharder(slots, 10, 2);
            Set<Integer> usedSlots = new HashSet<>();
            IntStream.range(0, 200)
                    .forEach(i -> usedSlots.add(s.slotOf(s.shardKey("hot", 100, 5_000 + i))));
            assertThat(usedSlots).as("%d slots", slots).hasSize(slots);
            assertThat(s.shards("hot", 5_200)).isEqualTo(slots);
        }
    }

    @Test
    void shardCountFollowsTheRate() {
        HotGraphSharder s = sharder(8, 10, 1);
        for (int i = 0; i < 30; i++) {
            s.shardKey("warm", 100, 10_000 + i * 30); // 30 requests in 0.9 s
        }
        assertThat(s.shards("warm", 10_950)).isEqualTo(3);
        // the next second is quiet: the rate of the last full second still holds …
        s.shardKey("warm", 100, 11_100);
        assertThat(s.shards("warm", 11_100)).isEqualTo(3);
        // … and after a silent second the graph is back on one slot
        assertThat(s.shards("warm", 13_500)).isEqualTo(1);
    }

    @Test
    void theFirstShardIsTheGraphsHomeSlot() {
        HotGraphSharder s = sharder(4, 1000, 1);
        String key = s.shardKey("g", 100, 0);
        assertThat(key).isEqualTo("g#0");
    }

    @Test
    void aGraphOfFewButLongRequestsSpreadsByItsEstimatedLoad() {
        HotGraphSharder s = new HotGraphSharder(4, 128, 25, 0.5);
        s.open(1);
        Set<Integer> usedSlots = new HashSet<>();
        for (int i = 0; i < 6; i++) { // 2 papers/s estimated at 600 ms each: 1.2 slots busy
            usedSlots.add(s.slotOf(s.shardKey("papers", 600, 20_000 + i * 500)));
        }
        assertThat(s.shards("papers", 22_600)).isEqualTo(3);
        assertThat(usedSlots).hasSizeGreaterThan(1);
        // as many short requests stay on one slot: 2/s at 56 ms is 0.11 of a slot
        for (int i = 0; i < 6; i++) {
            s.shardKey("tickets", 56, 20_000 + i * 500);
        }
        assertThat(s.shards("tickets", 22_600)).isEqualTo(1);
    }

    @Test
    void aGraphThatOneSlotCouldOnlyJustCarrySpreadsBeforeItsQueueGrows() {
        // 10/s seen here, 20/s in all (two classifier subtasks), below 25 requests per shard …
        HotGraphSharder byLoad = triageAtTwentyPerSecond(0.5);
        // … but at 40 ms each one slot would be busy 80 % of the time: both slots take it
        assertThat(byLoad.shards("triage", 31_050)).isEqualTo(2);
        assertThat(triageAtTwentyPerSecond(1e12).shards("triage", 31_050)).isEqualTo(1);
    }

    /** A 2-slot sharder of one of two classifier subtasks after 10 triage requests in 1 s. */
    private static HotGraphSharder triageAtTwentyPerSecond(double loadPerShard) {
        HotGraphSharder s = new HotGraphSharder(2, 128, 25, loadPerShard);
        s.open(2);
        for (int i = 0; i < 10; i++) {
            s.shardKey("triage", 40, 30_000 + i * 100);
        }
        return s;
    }

    @Test
    void aGraphThatDoesNotBatchTakesTheSlotWithTheLeastRecentLoad() {
        HotGraphSharder s = new HotGraphSharder(2, 128, 25, 0.5);
        s.open(1);
        // a cold graph that batches stays on its home slot: 300 ms of work there
        int busySlot = s.slotOf(s.shardKey("tickets", 300, true, 40_000));
        // a long document of a graph that does not batch goes to the other slot …
        int first = s.slotOf(s.shardKey("paper-a", 600, false, 40_010));
        assertThat(first).isNotEqualTo(busySlot);
        // … and one of another such graph back to the first, now the less loaded
        assertThat(s.slotOf(s.shardKey("paper-b", 600, false, 40_020))).isEqualTo(busySlot);

        // one such graph alone, at a rate far below a shard's: its documents alternate
        HotGraphSharder fresh = new HotGraphSharder(2, 128, 25, 0.5);
        fresh.open(1);
        java.util.Map<Integer, Integer> perSlot = new java.util.HashMap<>();
        for (int i = 0; i < 10; i++) {
            perSlot.merge(
                    fresh.slotOf(fresh.shardKey("paper", 600, false, 50_000 + i * 5_000)),
                    1,
                    Integer::sum);
        }
        assertThat(perSlot).hasSize(2).containsValues(5, 5);
    }

    @Test
    void theRequestPartsOfASplitRequestEachTakeASlotOfTheirOwnLeastLoadedFirst() {
        HotGraphSharder s = new HotGraphSharder(4, 128, 25, 0.5);
        s.open(1);
        // another graph keeps one slot busy: the parts go to the other three first
        String busy = s.shardKey("tickets", 5_000, false, 1_000);
        String[] keys = s.partKeys("paper", new double[] {300, 300, 300}, 1_000);
        java.util.Set<Integer> slots = new java.util.HashSet<>();
        for (String key : keys) {
            assertThat(key).startsWith("paper#");
            slots.add(s.slotOf(key));
        }
        assertThat(slots).hasSize(3).doesNotContain(s.slotOf(busy));
        // more parts than slots: each round of parts takes each slot once
        String[] many = s.partKeys("paper", new double[] {10, 10, 10, 10, 10, 10, 10, 10}, 2_000);
        java.util.Map<Integer, Integer> perSlot = new java.util.HashMap<>();
        for (String key : many) {
            perSlot.merge(s.slotOf(key), 1, Integer::sum);
        }
        assertThat(perSlot).hasSize(4).allSatisfy((slot, n) -> assertThat(n).isEqualTo(2));
    }
}
