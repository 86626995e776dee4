package io.zerolayer.operators.flink;

import io.zerolayer.operators.scheduling.TenantShares;
import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;

/**
 * Spreads hot graphs over several executor slots. Requests are keyed by a <em>shard key</em>: a
 * graph with little traffic has one shard (its graph id plus a fixed salt), a graph whose observed
 * rate exceeds {@code requestsPerShard} requests/s, or whose estimated encoder load exceeds {@code
 * loadPerShard} slots, gets one more shard per multiple of it, up to one per executor slot. The
 * load is the graph's rate times the compiler's estimate of one request's encode time alone on the
 * slot's hardware: 0.5 means a shard is added once a slot would be busy half the time with the
 * graph, before its queue grows. It spreads graphs of few but long requests (papers, contracts),
 * which carry most of the encoder work of a mixed stream, and keeps a graph that one slot could
 * only just carry from queueing on that slot while others idle. Salts are chosen so that the shards
 * of one graph land on distinct slots (a plain {@code graphId#n} could hash two shards onto the
 * same slot), and each shard compiles its graph once in its slot.
 *
 * <p>A graph with several shards sends each request to the shard whose slot has had the least
 * estimated encode time sent to it lately (by every graph, decaying with {@link
 * #LOAD_DECAY_MILLIS}), not round robin: the shards' slots also run other graphs. A graph whose
 * plan does not batch (batch size 1: long documents, where a request is a batch of its own) has
 * nothing to gain from keeping its requests together, so it always takes every slot this way; many
 * such graphs of a mixed stream would otherwise each sit on the slot its hash picked.
 *
 * <p>A tenant whose own requests of a graph would keep a slot busy {@code loadPerShard} of the time
 * gets keys of its own for the graph: its requests batch with each other (there are enough of
 * them), and the graph's other tenants keep theirs. A slot runs one batch of a key at a time, so
 * without this a flooding tenant's batches would hold every other tenant's requests of the same
 * graph behind them; with it, they are batches of different keys, which the slot orders by each
 * tenant's share ({@link TenantShares}).
 *
 * <p>One instance per classifier subtask; it sees that subtask's share of the traffic and scales it
 * by the number of classifier subtasks to estimate the graph's total rate. Each balances its own
 * share, so together they balance the whole.
 */
public final class HotGraphSharder implements Serializable {
    /** Graphs whose rates are tracked; the least recently seen are forgotten beyond this. */
    private static final int TRACKED_GRAPHS = 10_000;

    private final int executorParallelism;
    private final int maxParallelism;
    private final double requestsPerShard;
    private final double loadPerShard;
    private transient int observers;
    private transient Map<String, GraphTraffic> traffic;

    /** Each tenant's requests of each graph lately, by graph id and tenant. */
    private transient Map<String, Traffic> tenantTraffic;

    /** Between a graph id and a tenant in the graph id of a tenant's own keys. */
    static final String TENANT_MARK = "@";

    /** How fast a slot's recent load is forgotten: its time constant. */
    static final double LOAD_DECAY_MILLIS = 1_000;

    /** Estimated encode milliseconds sent to each slot lately, decayed to {@link #loadAt}. */
    private transient double[] slotLoad;

    private transient long loadAt;

    /**
     * @param executorParallelism slots of the executor operator
     * @param maxParallelism the executor operator's max parallelism (key groups)
     * @param requestsPerShard requests/s one shard is meant to carry before another is added
     * @param loadPerShard estimated encoder load (seconds of encoding per second, so the share of
     *     one slot kept busy) one shard is meant to carry before another is added
     */
    public HotGraphSharder(
            int executorParallelism,
            int maxParallelism,
            double requestsPerShard,
            double loadPerShard) {
        if (requestsPerShard <= 0 || loadPerShard <= 0) {
            throw new IllegalArgumentException(
                    "requests and load per shard must be positive, got "
                            + requestsPerShard
                            + " and "
                            + loadPerShard);
        }
        this.executorParallelism = executorParallelism;
        this.maxParallelism = maxParallelism;
        this.requestsPerShard = requestsPerShard;
        this.loadPerShard = loadPerShard;
    }

    /**
     * @param observers classifier subtasks sharing the traffic (this one included)
     */
    public void open(int observers) {
        this.observers = Math.max(1, observers);
        this.slotLoad = new double[executorParallelism];
        this.loadAt = 0;
        this.traffic =
                new LinkedHashMap<>(64, 0.75f, true) {
                    @Override
                    protected boolean removeEldestEntry(Map.Entry<String, GraphTraffic> eldest) {
                        return size() > TRACKED_GRAPHS;
                    }
                };
        this.tenantTraffic =
                new LinkedHashMap<>(64, 0.75f, true) {
                    @Override
                    protected boolean removeEldestEntry(Map.Entry<String, Traffic> eldest) {
                        return size() > TRACKED_GRAPHS;
                    }
                };
    }

    /**
     * {@link #shardKey(String, double, boolean, long)} for a request of {@code tenant}: on the
     * graph's shared keys, or on keys of the tenant's own when its requests of the graph alone
     * carry {@code loadPerShard} of a slot.
     */
    public String shardKey(
            String graphId, String tenant, double encodeMillis, boolean batches, long nowMillis) {
        Traffic t =
                tenantTraffic.computeIfAbsent(
                        graphId + TENANT_MARK + tenant, k -> new Traffic(nowMillis));
        t.record(encodeMillis, nowMillis);
        t.roll(nowMillis);
        double load = Math.max(t.lastLoad, t.encodeMillisInWindow / 1000.0) * observers;
        String keyedAs = load >= loadPerShard ? graphId + TENANT_MARK + tenant : graphId;
        return shardKey(keyedAs, encodeMillis, batches, nowMillis);
    }

    /**
     * Records one request of {@code graphId} that the compiler estimates to take {@code
     * encodeMillis} to encode alone, and returns the key to route it by.
     */
    public String shardKey(String graphId, double encodeMillis, long nowMillis) {
        return shardKey(graphId, encodeMillis, true, nowMillis);
    }

    /**
     * Records one request of {@code graphId} that the compiler estimates to take {@code
     * encodeMillis} to encode alone, and returns the key to route it by; {@code batches}: whether
     * the graph's plan batches requests (a batch size above 1).
     */
    public String shardKey(String graphId, double encodeMillis, boolean batches, long nowMillis) {
        GraphTraffic t = traffic.computeIfAbsent(graphId, id -> new GraphTraffic(id, nowMillis));
        t.record(encodeMillis, nowMillis);
        int shards = batches ? shardCount(t, nowMillis) : executorParallelism;
        decayLoad(nowMillis);
        int pick = 0;
        for (int shard = 1; shard < shards; shard++) {
            if (slotLoad[t.slots[shard]] < slotLoad[t.slots[pick]]) {
                pick = shard;
            }
        }
        slotLoad[t.slots[pick]] += Math.max(1, encodeMillis); // unknown estimates still spread
        return t.keys[pick];
    }

    /**
     * The keys of the parts of one request of {@code graphId} split to run in several slots: each
     * part on a slot of its own (while there are slots), the least loaded lately first, each
     * recorded with its estimated encode time. The request counts once in its graph's rate.
     *
     * @param encodeMillis each part's estimated encode time alone
     */
    public String[] partKeys(String graphId, double[] encodeMillis, long nowMillis) {
        GraphTraffic t = traffic.computeIfAbsent(graphId, id -> new GraphTraffic(id, nowMillis));
        t.record(java.util.Arrays.stream(encodeMillis).sum(), nowMillis);
        decayLoad(nowMillis);
        String[] keys = new String[encodeMillis.length];
        boolean[] taken = new boolean[executorParallelism];
        for (int part = 0; part < keys.length; part++) {
            if (part % executorParallelism == 0) {
                java.util.Arrays.fill(taken, false);
            }
            int pick = -1;
            for (int shard = 0; shard < executorParallelism; shard++) {
                if (!taken[shard]
                        && (pick < 0 || slotLoad[t.slots[shard]] < slotLoad[t.slots[pick]])) {
                    pick = shard;
                }
            }
            taken[pick] = true;
            slotLoad[t.slots[pick]] += Math.max(1, encodeMillis[part]);
            keys[part] = t.keys[pick];
        }
        return keys;
    }

    private void decayLoad(long nowMillis) {
        if (nowMillis > loadAt) {
            double keep = Math.exp(-(nowMillis - loadAt) / LOAD_DECAY_MILLIS);
            for (int i = 0; i < slotLoad.length; i++) {
                slotLoad[i] *= keep;
            }
            loadAt = nowMillis;
        }
    }

    /** Slots of the executor operator. */
    public int slots() {
        return executorParallelism;
    }

    /** Current shard count of a graph (for metrics and tests). */
    public int shards(String graphId, long nowMillis) {
        GraphTraffic t = traffic.get(graphId);
        return t == null ? 0 : shardCount(t, nowMillis);
    }

    /**
     * One shard per {@code requestsPerShard} of the graph's estimated total rate or per {@code
     * loadPerShard} of its estimated load, whichever asks for more, 1 to all slots.
     */
    private int shardCount(GraphTraffic t, long nowMillis) {
        t.roll(nowMillis);
        double requests = Math.max(t.lastRate, t.inWindow) * observers;
        double load = Math.max(t.lastLoad, t.encodeMillisInWindow / 1000.0) * observers;
        double wanted = Math.max(requests / requestsPerShard, load / loadPerShard);
        return (int) Math.min(executorParallelism, Math.max(1, Math.ceil(wanted)));
    }

    /** The key of a graph's first shard: where a cold graph runs and where it is precompiled. */
    public static String homeKey(String structureId) {
        return structureId + "#0";
    }

    /**
     * Whether the executor subtask {@code task} serves a structure, by its hardware-independent
     * graph id: whether the structure's home key is in its key groups.
     */
    public static boolean ownedBy(String structureId, org.apache.flink.api.common.TaskInfo task) {
        return KeyGroupRangeAssignment.assignKeyToParallelOperator(
                        homeKey(structureId),
                        task.getMaxNumberOfParallelSubtasks(),
                        task.getNumberOfParallelSubtasks())
                == task.getIndexOfThisSubtask();
    }

    /** The executor slot a shard key is processed in. */
    public int slotOf(String shardKey) {
        return KeyGroupRangeAssignment.assignKeyToParallelOperator(
                shardKey, maxParallelism, executorParallelism);
    }

    /** A stream of requests' rate and estimated encode load, over one-second windows. */
    private static class Traffic {
        long windowStart;
        int inWindow;
        double encodeMillisInWindow;
        double lastRate;
        double lastLoad;

        Traffic(long now) {
            windowStart = now;
        }

        /** Counts one arrival. */
        void record(double encodeMillis, long now) {
            roll(now);
            inWindow++;
            encodeMillisInWindow += encodeMillis;
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
                lastLoad = silent ? 0 : encodeMillisInWindow / 1000.0 / seconds;
                windowStart = now;
                inWindow = 0;
                encodeMillisInWindow = 0;
            }
        }
    }

    private final class GraphTraffic extends Traffic {
        /** keys[i] lands on slots[i] = (home + i) mod parallelism. */
        final String[] keys = new String[executorParallelism];

        final int[] slots = new int[executorParallelism];

        GraphTraffic(String graphId, long now) {
            super(now);
            int home = slotOf(homeKey(graphId));
            for (int shard = 0, salt = 0; shard < executorParallelism; salt++) {
                String key = graphId + "#" + salt;
                if (slotOf(key) == (home + shard) % executorParallelism) {
                    slots[shard] = slotOf(key);
                    keys[shard++] = key;
                }
            }
        }
    }
}
