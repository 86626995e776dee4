package io.zerolayer.operators.flink;

import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;

/**
 * Spreads hot graphs over several executor slots. Requests are keyed by a <em>shard key</em>: a
 * graph with little traffic has one shard (its graph id plus a fixed salt), a graph whose observed
 * rate exceeds {@code requestsPerShard} requests/s or {@code charsPerShard} prompt characters/s
 * gets one more shard per multiple of it, up to one per executor slot. Counting characters as well
 * as requests spreads graphs of few but long requests (papers, contracts), which carry most of the
 * encoder work of a mixed stream, instead of leaving each on the one slot its hash picked. Salts
 * are chosen so that the shards of one graph land on distinct slots (a plain {@code graphId#n}
 * could hash two shards onto the same slot), and each shard compiles its graph once in its slot.
 *
 * <p>One instance per classifier subtask; it sees that subtask's share of the traffic and scales it
 * by the number of classifier subtasks to estimate the graph's total rate.
 */
public final class HotGraphSharder implements Serializable {
    /** Graphs whose rates are tracked; the least recently seen are forgotten beyond this. */
    private static final int TRACKED_GRAPHS = 10_000;

    private final int executorParallelism;
    private final int maxParallelism;
    private final double requestsPerShard;
    private final double charsPerShard;
    private transient int observers;
    private transient Map<String, GraphTraffic> traffic;

    /**
     * @param executorParallelism slots of the executor operator
     * @param maxParallelism the executor operator's max parallelism (key groups)
     * @param requestsPerShard requests/s one shard is meant to carry before another is added
     * @param charsPerShard prompt characters/s one shard is meant to carry before another is added
     */
    public HotGraphSharder(
            int executorParallelism,
            int maxParallelism,
            double requestsPerShard,
            double charsPerShard) {
        if (requestsPerShard <= 0 || charsPerShard <= 0) {
            throw new IllegalArgumentException(
                    "requests and characters per shard must be positive, got "
                            + requestsPerShard
                            + " and "
                            + charsPerShard);
        }
        this.executorParallelism = executorParallelism;
        this.maxParallelism = maxParallelism;
        this.requestsPerShard = requestsPerShard;
        this.charsPerShard = charsPerShard;
    }

    /**
     * @param observers classifier subtasks sharing the traffic (this one included)
     */
    public void open(int observers) {
        this.observers = Math.max(1, observers);
        this.traffic =
                new LinkedHashMap<>(64, 0.75f, true) {
                    @Override
                    protected boolean removeEldestEntry(Map.Entry<String, GraphTraffic> eldest) {
                        return size() > TRACKED_GRAPHS;
                    }
                };
    }

    /**
     * Records one request of {@code graphId} with a prompt of {@code promptChars} characters and
     * returns the key to route it by.
     */
    public String shardKey(String graphId, int promptChars, long nowMillis) {
        GraphTraffic t = traffic.computeIfAbsent(graphId, id -> new GraphTraffic(id, nowMillis));
        t.record(promptChars, nowMillis);
        return t.keys[(int) (t.sent++ % shardCount(t, nowMillis))];
    }

    /** Current shard count of a graph (for metrics and tests). */
    public int shards(String graphId, long nowMillis) {
        GraphTraffic t = traffic.get(graphId);
        return t == null ? 0 : shardCount(t, nowMillis);
    }

    /**
     * One shard per {@code requestsPerShard} or {@code charsPerShard} of the graph's estimated
     * total rate, whichever asks for more, 1 to all slots.
     */
    private int shardCount(GraphTraffic t, long nowMillis) {
        t.roll(nowMillis);
        double requests = Math.max(t.lastRate, t.inWindow) * observers;
        double chars = Math.max(t.lastCharRate, t.charsInWindow) * observers;
        double wanted = Math.max(requests / requestsPerShard, chars / charsPerShard);
        return (int) Math.min(executorParallelism, Math.max(1, Math.ceil(wanted)));
    }

    /** The key of a graph's first shard: where a cold graph runs and where it is precompiled. */
    public static String homeKey(String structureId) {
        return structureId + "#0";
    }

    /** The executor slot a shard key is processed in. */
    public int slotOf(String shardKey) {
        return KeyGroupRangeAssignment.assignKeyToParallelOperator(
                shardKey, maxParallelism, executorParallelism);
    }

    private final class GraphTraffic {
        /** keys[i] lands on slot (home + i) mod parallelism. */
        final String[] keys = new String[executorParallelism];

        long windowStart;
        int inWindow;
        long charsInWindow;
        double lastRate;
        double lastCharRate;
        long sent;

        GraphTraffic(String graphId, long now) {
            windowStart = now;
            int home = slotOf(homeKey(graphId));
            for (int shard = 0, salt = 0; shard < executorParallelism; salt++) {
                String key = graphId + "#" + salt;
                if (slotOf(key) == (home + shard) % executorParallelism) {
                    keys[shard++] = key;
                }
            }
        }

        /** Counts one arrival. */
        void record(int chars, long now) {
            roll(now);
            inWindow++;
            charsInWindow += chars;
        }

        /**
         * Rates are the last full second's, or the current second's counts so far if higher (so a
         * burst spreads within its first second; counting over a whole second keeps a few requests
         * in a row from looking like a flood).
         */
        void roll(long now) {
            if (now - windowStart >= 1000) {
                boolean silent = now - windowStart >= 2000;
                double seconds = (now - windowStart) / 1000.0;
                lastRate = silent ? 0 : inWindow / seconds;
                lastCharRate = silent ? 0 : charsInWindow / seconds;
                windowStart = now;
                inWindow = 0;
                charsInWindow = 0;
            }
        }
    }
}
