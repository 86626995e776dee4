package io.zerolayer.operators.flink;

import io.zerolayer.gpu.hardware.MemoryHeadroom;
import io.zerolayer.operators.execution.BatchRunner;
import io.zerolayer.operators.execution.NodeRun;
import io.zerolayer.operators.scheduling.SlotMetrics;
import io.zerolayer.schemas.AnalysisResponse;
import io.zerolayer.schemas.ResponseStatus;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntSupplier;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.metrics.DescriptiveStatisticsHistogram;

/**
 * The metrics of an executor slot, under the operator's metric group (docs/metrics.md names each):
 * warm-graph cache hits and misses, compile time, micro-batch sizes, queue delay and run time,
 * fallbacks, pruned requests, per-node durations, responses by fidelity, request latency, memory
 * headroom, and cost by tenant × kernel for the billing dashboard.
 */
final class ExecutorMetrics implements SlotMetrics {
    /** Tenants with their own cost counters; the rest share "other" (Prometheus cardinality). */
    static final int MAX_TENANT_COUNTERS = 1000;

    private static final List<String> NODE_KINDS =
            List.of(
                    "tokenize",
                    "chunk",
                    "cache",
                    "encode",
                    "pool",
                    "decode",
                    "evidence",
                    "redact",
                    "audit");
    private static final List<String> OUTCOMES = List.of("FULL", "REDUCED", "SAFE_MODE", "FAILED");

    private final MetricGroup group;
    private final Counter cacheHits;
    private final Counter cacheMisses;
    private final Histogram compileTimeMs;
    private final Histogram requestLatencyMs;
    private final Histogram batchRequests;
    private final Histogram batchSequences;
    private final Histogram queueDelayMs;
    private final Histogram executeMs;
    private final Counter fallbacks;
    private final Counter sharedStructures;
    private final Counter passesAcrossGraphs;
    private final Counter pruned;
    private final Map<String, Histogram> nodeMicros = new HashMap<>();
    private final Map<String, Counter> byOutcome = new HashMap<>();
    private final Map<String, Counter> costCounters = new HashMap<>();
    private final Set<String> countedTenants = new HashSet<>();

    ExecutorMetrics(MetricGroup group, IntSupplier warmGraphs, MemoryHeadroom headroom) {
        this.group = group;
        cacheHits = group.counter("execution_graph_cache_hit_total");
        cacheMisses = group.counter("execution_graph_cache_miss_total");
        sharedStructures = group.counter("execution_graph_shared_structures_total");
        passesAcrossGraphs = group.counter("encoder_passes_across_graphs_total");
        compileTimeMs = histogram(group, "graph_compile_time_ms");
        requestLatencyMs = histogram(group, "request_latency_ms");
        group.gauge("execution_graph_cache_size", warmGraphs::getAsInt);
        batchRequests = histogram(group, "batch_size_requests");
        batchSequences = histogram(group, "batch_size_sequences");
        queueDelayMs = histogram(group, "batch_queue_delay_ms");
        executeMs = histogram(group, "batch_execute_time_ms");
        fallbacks = group.counter("fallback_total");
        pruned = group.counter("pruned_requests_total");
        group.gauge("memory_free_ratio", headroom::freeRatio);
        group.gauge("memory_free_bytes", () -> headroom.bytes()[0]);
        group.gauge(
                "memory_used_bytes",
                () -> {
                    long[] b = headroom.bytes();
                    return b[1] < 0 ? -1 : b[1] - b[0];
                });
        for (String kind : NODE_KINDS) {
            nodeMicros.put(kind, histogram(group.addGroup("node", kind), "time_us"));
        }
        for (String outcome : OUTCOMES) {
            byOutcome.put(outcome, group.addGroup("fidelity", outcome).counter("responses_total"));
        }
        // per request, as the counters are: a queued request's second lookup is not a hit
        group.gauge(
                "execution_graph_cache_hit_ratio",
                () -> {
                    long hits = cacheHits.getCount();
                    long lookups = hits + cacheMisses.getCount();
                    return lookups == 0 ? 0.0 : (double) hits / lookups;
                });
    }

    private static Histogram histogram(MetricGroup group, String name) {
        return group.histogram(name, new DescriptiveStatisticsHistogram(1000));
    }

    /**
     * The TaskManager's embedding cache: hits and misses (sequences looked up), bytes held and
     * entries evicted, as every slot of it reports them.
     */
    void embeddingCache(io.zerolayer.operators.execution.EmbeddingCache cache) {
        MetricGroup g = group.addGroup("embedding_cache");
        g.gauge("hits_total", cache::hits);
        g.gauge("misses_total", cache::misses);
        g.gauge("bytes", cache::bytes);
        g.gauge("evictions_total", cache::evictions);
        g.gauge("entries", cache::size);
    }

    /** How many batches the slot's inference thread holds, running or waiting. */
    void batchesRunning(IntSupplier running) {
        group.gauge("batches_running", running::getAsInt);
    }

    /** How many batches joined another's encoder pass on the slot's inference thread. */
    void batchesJoined(java.util.function.LongSupplier joined) {
        group.gauge("batches_joined_total", joined::getAsLong);
    }

    /** An encoder pass ran several batches together; {@code graphs}: of how many graphs. */
    @Override
    public void passShared(long graphs) {
        if (graphs > 1) {
            passesAcrossGraphs.inc();
        }
    }

    /** How many batches ran between the slices of another on the slot's inference thread. */
    void batchesInterleaved(java.util.function.LongSupplier interleaved) {
        group.gauge("batches_interleaved_total", interleaved::getAsLong);
    }

    /** The executor's parallelism, reported by each of its slots from the moment it opens. */
    void slots(int parallelism) {
        group.gauge("executor_slots", () -> parallelism);
    }

    /** Registered once the slot can serve warm: its readiness, and how many graphs it compiled. */
    void ready(int precompiled) {
        group.gauge("graphs_ready", () -> 1);
        group.gauge("graphs_precompiled", () -> precompiled);
    }

    @Override
    public void cacheHit() {
        cacheHits.inc();
    }

    /**
     * A structure ran for the first time on a graph warm for another structure of its shape: a
     * compile the plan id saved.
     */
    @Override
    public void sharedStructure() {
        sharedStructures.inc();
    }

    @Override
    public void compiled(long compileMicros) {
        cacheMisses.inc();
        compileTimeMs.update(compileMicros / 1_000);
    }

    @Override
    public void queuedFor(long millis) {
        queueDelayMs.update(millis);
    }

    /** A batch of {@code requests} that ran (or failed). */
    @Override
    public void batchRan(int requests, BatchRunner.Outcome outcome) {
        batchRequests.update(requests);
        if (outcome.fellBack()) {
            fallbacks.inc();
        }
        if (outcome.failure() == null) {
            executeMs.update(outcome.executeMicros() / 1_000);
            batchSequences.update(outcome.sequences());
        }
    }

    @Override
    public void prunedRequest() {
        pruned.inc();
    }

    /** The kernels one request ran: their durations, and their cost to its tenant. */
    @Override
    public void kernels(String tenant, List<NodeRun> nodes) {
        for (NodeRun node : nodes) {
            Histogram h = nodeMicros.get(node.kind());
            if (h != null) {
                h.update(node.durationNanos() / 1_000);
            }
            costCounter(tenant, node.kind()).inc(node.money().total());
        }
    }

    /** A response sent, by its outcome, {@code millis} after the request reached the slot. */
    @Override
    public void replied(AnalysisResponse response, long millis) {
        String outcome =
                response.getStatus() == ResponseStatus.OK
                        ? String.valueOf(response.getFidelity())
                        : "FAILED";
        Counter c = byOutcome.get(outcome);
        if (c != null) {
            c.inc();
        }
        requestLatencyMs.update(millis);
    }

    /** A request rejected because its tenant was over its in-flight quota in this slot. */
    void overQuota(String tenant) {
        String t = countedTenant(tenant);
        overQuota
                .computeIfAbsent(
                        t, k -> group.addGroup("tenant", k).counter("requests_over_quota_total"))
                .inc();
    }

    private final java.util.Map<String, Counter> overQuota = new java.util.HashMap<>();

    private String countedTenant(String tenant) {
        String t =
                countedTenants.contains(tenant) || countedTenants.size() < MAX_TENANT_COUNTERS
                        ? tenant
                        : "other";
        countedTenants.add(t);
        return t;
    }

    private Counter costCounter(String tenant, String kernel) {
        String t = countedTenant(tenant);
        return costCounters.computeIfAbsent(
                t + "\u0000" + kernel,
                k ->
                        group.addGroup("tenant", t)
                                .addGroup("kernel", kernel)
                                .counter("cost_nano_usd_total"));
    }
}
