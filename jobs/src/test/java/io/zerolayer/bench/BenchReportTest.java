package io.zerolayer.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BenchReportTest {
    /** A report with made-up figures for one workload at parallelism 2. */
    private static ObjectNode report(
            double zerolayer, double naive, double router, double ceiling) {
        ObjectNode r = BenchWorker.JSON.createObjectNode();
        r.put("startedAt", "20261202-000000");
        r.putObject("machine").put("cores", 2).put("cpu", "test cpu");
        r.putObject("options")
                .put("parallelism", 2)
                .put("window", 64)
                .put("inFlightSeconds", 2.0)
                .put("replyDelivery", "at-least-once")
                .put("openLoopBase", ComparisonBench.ROUTER);
        ObjectNode c = r.putObject("ceiling");
        c.putObject("work").putObject("customer-service").put("tokensPerRequest", 100.0);
        c.putArray("ceiling")
                .addObject()
                .put("workload", "customer-service")
                .put("workers", 2)
                .put("size", 0)
                .put("requestsPerSecond", ceiling)
                .put("tokensPerSecond", ceiling * 100);
        ArrayNode systems = r.putArray("systems");
        Map<String, Double> rates = new HashMap<>();
        rates.put(ComparisonBench.ZEROLAYER, zerolayer);
        rates.put(ComparisonBench.NAIVE, naive);
        rates.put(ComparisonBench.ROUTER, router);
        rates.forEach(
                (name, rps) -> {
                    ObjectNode s = systems.addObject().put("system", name).put("parallelism", 2);
                    ArrayNode phases = s.putArray("phases");
                    phase(phases, "closed", 0, rps, 400, 900);
                    // at the same load (70% of the router's maximum) the router's p95 is 4 ×
                    // zerolayer's
                    double p95 = name.equals(ComparisonBench.ROUTER) ? 400 : 100;
                    phase(phases, "open", 0.5, router / 2, 20, 50);
                    phase(phases, "open", 0.7, router * 0.7, 40, p95);
                    // the same open loop with exactly-once replies: not what the targets read
                    phase(phases, "open", 0.7, router * 0.7, 500, 900)
                            .put("replyDelivery", "exactly-once");
                });
        return r;
    }

    private static ObjectNode phase(
            ArrayNode phases, String mode, double load, double rps, double p50, double p95) {
        ObjectNode p =
                phases.addObject()
                        .put("workload", "customer-service")
                        .put("replyDelivery", "at-least-once")
                        .put("mode", mode)
                        .put("load", load)
                        .put("size", 0)
                        .put("requestsPerSecond", rps)
                        .put("ok", 100)
                        .put("failed", 0)
                        .put("compiles", 1);
        p.putObject("latency").put("p50", p50).put("p95", p95).put("p99", p95 * 1.5);
        return p;
    }

    private static JsonNode target(ArrayNode targets, String prefix) {
        for (JsonNode t : targets) {
            if (t.path("target").asText().startsWith(prefix)) {
                return t;
            }
        }
        throw new AssertionError("no target " + prefix + " in " + targets);
    }

    @Test
    void targetsAreRatiosOfTheMeasuredFigures() {
        ArrayNode targets = new BenchReport(report(90, 30, 80, 100)).targets();
        assertThat(target(targets, "zerolayer ≥ 1.0 × ceiling").path("value").asDouble())
                .isEqualTo(0.9);
        assertThat(target(targets, "zerolayer ≥ 1.0 × ceiling").path("met").asBoolean()).isFalse();
        // every closed loop: 1 compile of 100 answered
        JsonNode hits = target(targets, "hit ratio ≥ 0.95 and ≤ 3 compiles after warm-up");
        assertThat(hits.path("value").asDouble()).isEqualTo(0.99);
        assertThat(hits.path("met").asBoolean()).isTrue();
        assertThat(target(targets, "zerolayer ≥ 2 × naive").path("value").asDouble())
                .isEqualTo(3.0);
        JsonNode router = target(targets, "zerolayer ≥ 1.5 × runtime router");
        assertThat(router.path("value").asDouble()).isEqualTo(90.0 / 80);
        assertThat(router.path("met").asBoolean()).isFalse();
        assertThat(target(targets, "p95 ≤ 0.55 × the router's").path("value").asDouble())
                .isEqualTo(0.25);
        JsonNode tail = target(targets, "p99 ≤ 2 × p50 at 70% load");
        assertThat(tail.path("value").asDouble()).isEqualTo(150.0 / 40);
        assertThat(tail.path("met").asBoolean()).isFalse();
    }

    @Test
    void theTableShowsEachSystemAndItsRatioToTheCeiling() {
        String md = new BenchReport(report(90, 30, 80, 100)).markdown();
        assertThat(md)
                .contains(
                        "| customer-service | ceiling (bare ONNX Runtime) | 100.0 | 10000 | 1.00 |")
                .contains("| customer-service | zerolayer | 90.0 | 9000 | 0.90 |")
                .contains("| customer-service | naive-flink | 30.0 | 3000 | 0.30 |")
                .contains(
                        "| zerolayer ≥ 1.5 × runtime router, customer-service | 1.13 × | **no** |");
    }

    @Test
    void ticketsOnTheMixedStreamAreComparedWithTicketsAloneAtTheirRate() {
        ObjectNode r = report(90, 30, 80, 100);
        r.path("systems")
                .forEach(
                        s -> {
                            if (s.path("system").asText().equals(ComparisonBench.ZEROLAYER)) {
                                ArrayNode zl = (ArrayNode) s.path("phases");
                                ObjectNode mixed = phase(zl, "open", 0.7, 50, 80, 300);
                                mixed.put("workload", "mixed");
                                ObjectNode kinds = mixed.putObject("latencyByKind");
                                kinds.putObject("ticket")
                                        .put("count", 700)
                                        .put("p50", 60)
                                        .put("p99", 150);
                                kinds.putObject("paper")
                                        .put("count", 50)
                                        .put("p50", 900)
                                        .put("p99", 2000);
                                phase(zl, "open", 0.7, 35, 50, 80)
                                        .put("workload", BenchWorker.TICKETS_ALONE)
                                        .putObject("latency")
                                        .put("p50", 50)
                                        .put("p99", 120);
                            }
                        });
        BenchReport report = new BenchReport(r);
        JsonNode t = target(report.targets(), "ticket p99 on the mixed stream");
        assertThat(t.path("value").asDouble()).isEqualTo(150.0 / 120);
        assertThat(t.path("met").asBoolean()).isTrue();
        assertThat(report.markdown())
                .contains(
                        "| zerolayer | at-least-once | 70% | ticket | 700 | 60 | 150 | 120 (1.25 ×)"
                                + " |")
                .contains("| zerolayer | at-least-once | 70% | paper | 50 | 900 | 2000 |  |");
    }

    @Test
    void soakGrowthComparesTheSecondMinuteWithTheLast() {
        ArrayNode samples = BenchWorker.JSON.createArrayNode();
        for (int t = 0; t <= 600; t += 10) {
            // 1 GiB, growing by 1 MiB a minute after a start-up jump
            double rss = t < 60 ? 512 << 20 : (1L << 30) + (t / 60.0) * (1 << 20);
            samples.addObject().put("seconds", t).put("rssBytes", rss);
        }
        double[] g = SoakReport.growth(samples);
        assertThat(g[0] / (1 << 20)).isBetween(1025.0, 1026.0);
        assertThat(g[1] / (1 << 20)).isBetween(1033.0, 1034.0);
        assertThat(g[2]).isEqualTo((1L << 30) + 10.0 * (1 << 20));
    }
}
