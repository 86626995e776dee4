package io.zerolayer.operators.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.gpu.hardware.MemoryHeadroom;
import io.zerolayer.operators.costs.PriceSheet;
import io.zerolayer.operators.execution.BatchRunner;
import io.zerolayer.operators.execution.NodeRun;
import io.zerolayer.schemas.AnalysisResponse;
import io.zerolayer.schemas.CostTotal;
import io.zerolayer.schemas.Fidelity;
import io.zerolayer.schemas.ResponseStatus;
import io.zerolayer.schemas.Timings;
import java.time.Instant;
import java.util.List;
import org.apache.flink.metrics.testutils.MetricListener;
import org.junit.jupiter.api.Test;

class ExecutorMetricsTest {
    private final MetricListener listener = new MetricListener();
    private final ExecutorMetrics metrics =
            new ExecutorMetrics(listener.getMetricGroup(), () -> 3, MemoryHeadroom.fixed(0.4));

    private long count(String... path) {
        return listener.getCounter(path).orElseThrow().getCount();
    }

    @Test
    void theCacheHitRatioIsPerRequestAndCompilesAreMisses() {
        metrics.cacheHit();
        metrics.cacheHit();
        metrics.cacheHit();
        metrics.compiled(12_000);
        metrics.sharedStructure();
        assertThat(count("execution_graph_shared_structures_total")).isEqualTo(1);
        assertThat(count("execution_graph_cache_hit_total")).isEqualTo(3);
        assertThat(count("execution_graph_cache_miss_total")).isEqualTo(1);
        assertThat(listener.<Double>getGauge("execution_graph_cache_hit_ratio").get().getValue())
                .isEqualTo(0.75);
        assertThat(listener.getHistogram("graph_compile_time_ms").get().getStatistics().getMax())
                .isEqualTo(12);
        assertThat(listener.<Integer>getGauge("execution_graph_cache_size").get().getValue())
                .isEqualTo(3);
        assertThat(listener.<Double>getGauge("memory_free_ratio").get().getValue()).isEqualTo(0.4);
    }

    @Test
    void batchesCountFallbacksAndOnlyBatchesThatRanTheirTime() {
        metrics.batchRan(4, new BatchRunner.Outcome(List.of(), null, null, true, 30_000, 9));
        metrics.batchRan(
                2, new BatchRunner.Outcome(null, null, new RuntimeException(), true, 0, 0));
        assertThat(count("fallback_total")).isEqualTo(2);
        assertThat(listener.getHistogram("batch_size_requests").get().getCount()).isEqualTo(2);
        assertThat(listener.getHistogram("batch_execute_time_ms").get().getCount()).isEqualTo(1);
        assertThat(listener.getHistogram("batch_size_sequences").get().getStatistics().getMax())
                .isEqualTo(9);
    }

    @Test
    void kernelsAreBilledToTheirTenantAndResponsesCountedByOutcome() {
        NodeRun encode =
                new NodeRun(
                        "encode",
                        "encode",
                        "m",
                        0,
                        2_000_000,
                        1,
                        10L,
                        null,
                        null,
                        null,
                        null,
                        null,
                        1,
                        new PriceSheet.Money(5, 2, 0, 0));
        metrics.kernels("acme", List.of(encode, encode));
        assertThat(count("tenant", "acme", "kernel", "encode", "cost_nano_usd_total"))
                .isEqualTo(2 * encode.money().total());
        assertThat(listener.getHistogram("node", "encode", "time_us").get().getCount())
                .isEqualTo(2);

        metrics.replied(response(ResponseStatus.OK, Fidelity.REDUCED), 40);
        metrics.replied(response(ResponseStatus.FAILED, null), 10);
        assertThat(count("fidelity", "REDUCED", "responses_total")).isEqualTo(1);
        assertThat(count("fidelity", "FAILED", "responses_total")).isEqualTo(1);
        assertThat(listener.getHistogram("request_latency_ms").get().getStatistics().getMax())
                .isEqualTo(40);
    }

    @Test
    void tenantsBeyondTheCounterLimitShareOne() {
        NodeRun pool =
                new NodeRun(
                        "pool",
                        "pool",
                        null,
                        0,
                        1_000,
                        1,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        1,
                        new PriceSheet.Money(1, 0, 0, 0));
        for (int t = 0; t < ExecutorMetrics.MAX_TENANT_COUNTERS + 5; t++) {
            metrics.kernels("tenant-" + t, List.of(pool));
        }
        assertThat(count("tenant", "other", "kernel", "pool", "cost_nano_usd_total"))
                .isEqualTo(5 * pool.money().total());
        assertThat(
                        listener.getCounter(
                                "tenant", "tenant-1004", "kernel", "pool", "cost_nano_usd_total"))
                .isEmpty();
    }

    private static AnalysisResponse response(ResponseStatus status, Fidelity fidelity) {
        return AnalysisResponse.newBuilder()
                .setRequestId("r")
                .setTenantId("acme")
                .setStatus(status)
                .setFidelity(fidelity)
                .setTimings(new Timings(Instant.EPOCH, Instant.EPOCH, 0L, 0L, 0L))
                .setCost(new CostTotal(0, 0L, null, null))
                .build();
    }
}
