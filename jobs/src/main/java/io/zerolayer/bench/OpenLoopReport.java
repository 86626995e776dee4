package io.zerolayer.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The open-loop tables of a bench report: latency at fixed rates per system and reply mode, and the
 * mixed stream's latency by kind of request against tickets alone.
 */
final class OpenLoopReport {
    private final BenchReport bench;

    OpenLoopReport(BenchReport bench) {
        this.bench = bench;
    }

    void openLoop(StringBuilder md) {
        List<String> rows = new ArrayList<>();
        for (JsonNode facts : bench.workloads()) {
            String w = facts.path("id").asText();
            for (String s : BenchReport.SYSTEMS) {
                for (JsonNode p : bench.phases(s, bench.parallelism)) {
                    if (p.path("workload").asText().equals(w)
                            && p.path("mode").asText().equals("open")) {
                        rows.add(
                                String.format(
                                        Locale.ROOT,
                                        "| %s | %s | %s | %.0f%% | %.1f | %.1f | %.0f | %.0f |"
                                                + " %.0f | %.0f | %.0f | %d |",
                                        w,
                                        s,
                                        p.path("replyDelivery").asText("exactly-once"),
                                        p.path("load").asDouble() * 100,
                                        p.path("offeredPerSecond").asDouble(),
                                        p.path("requestsPerSecond").asDouble(),
                                        p.path("latency").path("p50").asDouble(),
                                        p.path("latency").path("p95").asDouble(),
                                        p.path("latency").path("p99").asDouble(),
                                        p.path("latency").path("max").asDouble(),
                                        p.path("delivery").path("p50").asDouble(),
                                        p.path("lost").asInt()));
                    }
                }
            }
        }
        if (rows.isEmpty()) {
            return;
        }
        md.append(
                "**Open loop** (requests sent on a fixed schedule at a share of "
                        + (bench.report
                                        .path("options")
                                        .path("openLoopBase")
                                        .asText()
                                        .equals(ComparisonBench.ROUTER)
                                ? "the runtime router's maximum, the same offered load for every"
                                        + " system"
                                : "each system's own maximum")
                        + "; every system's replies in the mode shown; latency from the scheduled"
                        + " time to the reply, ms; delivery: from the answer being ready in the"
                        + " job to the reply reaching the client — the sink, for exactly-once"
                        + " replies the transaction's commit at the next completed checkpoint, and"
                        + " the read)\n\n");
        md.append(
                "| workload | system | replies | load | offered/s | achieved/s | p50 | p95 | p99 |"
                        + " max | delivery p50 | lost |\n"
                        + "|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
        rows.forEach(r -> md.append(r).append('\n'));
        md.append('\n');
    }

    /**
     * Latency of each kind of request on the mixed stream, open loop, and of the mixed stream's
     * tickets sent alone at the rate they came in it: what papers and contracts cost a ticket.
     */
    void latencyByKind(StringBuilder md) {
        List<String> rows = new ArrayList<>();
        for (String s : BenchReport.SYSTEMS) {
            for (JsonNode p : bench.phases(s, bench.parallelism)) {
                if (!p.path("workload").asText().equals(Workload.MIXED.id())
                        || !p.path("mode").asText().equals("open")) {
                    continue;
                }
                JsonNode alone = null;
                for (JsonNode a : bench.phases(s, bench.parallelism)) {
                    if (a.path("workload").asText().equals(BenchWorker.TICKETS_ALONE)
                            && a.path("replyDelivery").equals(p.path("replyDelivery"))
                            && a.path("load").asDouble() == p.path("load").asDouble()) {
                        alone = a;
                    }
                }
                JsonNode ticketsAlone = alone;
                p.path("latencyByKind")
                        .fields()
                        .forEachRemaining(
                                e -> {
                                    boolean ticket =
                                            e.getKey().equals("ticket") && ticketsAlone != null;
                                    rows.add(
                                            String.format(
                                                    Locale.ROOT,
                                                    "| %s | %s | %.0f%% | %s | %d | %.0f | %.0f |"
                                                            + " %s |",
                                                    s,
                                                    p.path("replyDelivery").asText(),
                                                    p.path("load").asDouble() * 100,
                                                    e.getKey(),
                                                    e.getValue().path("count").asInt(),
                                                    e.getValue().path("p50").asDouble(),
                                                    e.getValue().path("p99").asDouble(),
                                                    ticket
                                                            ? String.format(
                                                                    Locale.ROOT,
                                                                    "%.0f (%.2f ×)",
                                                                    BenchReport.p(
                                                                            ticketsAlone, "p99"),
                                                                    e.getValue()
                                                                                    .path("p99")
                                                                                    .asDouble()
                                                                            / BenchReport.p(
                                                                                    ticketsAlone,
                                                                                    "p99"))
                                                            : ""));
                                });
            }
        }
        if (rows.isEmpty()) {
            return;
        }
        md.append(
                "**Mixed stream by kind** (open loop; latency ms from the scheduled time; the last"
                        + " column: p99 of customer-service tickets sent alone at the rate the"
                        + " mixed stream's tickets came, and the mixed stream's ticket p99 over"
                        + " it)\n\n");
        md.append(
                "| system | replies | load | kind | requests | p50 | p99 | ticket p99 alone |\n"
                        + "|---|---|--:|---|--:|--:|--:|--:|\n");
        rows.forEach(r -> md.append(r).append('\n'));
        md.append('\n');
    }

    /**
     * The noisy-neighbour phases: the quiet tenant alone and beside the flood, and the flood (its
     * over-quota requests answered REJECTED, counted as failed).
     */
    void noisyNeighbour(StringBuilder md) {
        List<String> rows = new ArrayList<>();
        for (JsonNode p : bench.phases(ComparisonBench.ZEROLAYER, bench.parallelism)) {
            String w = p.path("workload").asText();
            if (w.equals(BenchWorker.QUIET_ALONE)
                    || w.equals(BenchWorker.QUIET_BESIDE_FLOOD)
                    || w.equals(BenchWorker.FLOOD)) {
                rows.add(
                        String.format(
                                Locale.ROOT,
                                "| %s | %.1f | %d | %d | %d | %d | %.0f | %.0f | %.0f |",
                                w,
                                p.path("offeredPerSecond").asDouble(),
                                p.path("sent").asInt(),
                                p.path("ok").asInt(),
                                p.path("failed").asInt(),
                                p.path("lost").asInt(),
                                p.path("latency").path("p50").asDouble(),
                                p.path("latency").path("p95").asDouble(),
                                p.path("latency").path("p99").asDouble()));
            }
        }
        if (rows.isEmpty()) {
            return;
        }
        md.append(
                "\n**Noisy neighbour** (zerolayer; customer-service tickets, open loop: tenant"
                        + " `flood` at "
                        + bench.report.path("options").path("noisyFlood").asDouble(5)
                        + " × the closed-loop maximum with quotas of "
                        + Math.round(NoisyNeighbours.FLOOD_RATE_SHARE * 100)
                        + " % of that maximum in requests a second and "
                        + NoisyNeighbours.FLOOD_IN_FLIGHT_PER_SLOT
                        + " in flight a slot, tenant `quiet` at 10 % of it, alone and then beside"
                        + " the flood;"
                        + " rejected: answered REJECTED ZL095 with a retry-after; latency ms)\n\n");
        md.append(
                "| phase | offered/s | sent | OK | rejected | lost | p50 | p95 | p99 |\n"
                        + "|---|--:|--:|--:|--:|--:|--:|--:|--:|\n");
        rows.forEach(r -> md.append(r).append('\n'));
        md.append('\n');
    }
}
