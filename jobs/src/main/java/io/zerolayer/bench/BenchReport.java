package io.zerolayer.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Turns the comparison's JSON into its Markdown tables and checks the targets of the benchmark
 * issue against the figures of this one run.
 */
final class BenchReport {
    static final String[] SYSTEMS = {
        ComparisonBench.ZEROLAYER, ComparisonBench.NAIVE, ComparisonBench.ROUTER
    };

    final JsonNode report;
    final int parallelism;

    BenchReport(JsonNode report) {
        this.report = report;
        this.parallelism = report.path("options").path("parallelism").asInt();
    }

    String markdown() {
        StringBuilder md = new StringBuilder();
        JsonNode m = report.path("machine");
        md.append(
                String.format(
                        Locale.ROOT,
                        "Measured %s on %s (%d cores), Java %s, ONNX Runtime %s, CPU provider,"
                                + " %d ONNX thread(s) a slot, checkpoints every %d ms, %s replies,"
                                + " slices of %s ms, %s, seed %d; %.0f s in all.%n%n",
                        report.path("startedAt").asText(),
                        m.path("cpu").asText(),
                        m.path("cores").asInt(),
                        m.path("java").asText(),
                        m.path("onnxRuntime").asText(),
                        m.path("intraOpThreads").asInt(),
                        report.path("options").path("checkpointIntervalMillis").asLong(),
                        report.path("options").path("replyDelivery").asText("exactly-once"),
                        report.path("options").path("sliceMillis").asText("no"),
                        m.path("embeddingCacheBytes").asLong() > 0
                                ? "an embedding cache of "
                                        + (m.path("embeddingCacheBytes").asLong() >> 20)
                                        + " MB ("
                                        + m.path("embeddingCacheScope").asText()
                                        + " scope)"
                                : "no embedding cache",
                        report.path("options").path("seed").asLong(),
                        report.path("wallSeconds").asDouble()));
        closedLoop(md);
        LabelledReport.append(this, md);
        CpuReport.append(closedLoops(ComparisonBench.ZEROLAYER), md);
        OpenLoopReport open = new OpenLoopReport(this);
        open.openLoop(md);
        open.latencyByKind(md);
        open.noisyNeighbour(md);
        scaling(md);
        sizes(md);
        soak(md);
        md.append("**Targets**\n\n| target | measured | met |\n|---|---|---|\n");
        for (JsonNode t : targets()) {
            md.append("| ")
                    .append(t.path("target").asText())
                    .append(" | ")
                    .append(t.path("measured").asText())
                    .append(" | ")
                    .append(t.path("met").asBoolean() ? "yes" : "**no**")
                    .append(" |\n");
        }
        return md.toString();
    }

    private void closedLoop(StringBuilder md) {
        md.append(
                String.format(
                        Locale.ROOT,
                        "**Closed loop, maximum throughput** (parallelism %d; each workload"
                                + " keeps %.0f s of the ceiling's work in flight, the same number"
                                + " for every system; latency from send to reply, ms)%n%n",
                        parallelism,
                        report.path("options").path("inFlightSeconds").asDouble()));
        md.append(
                "| workload | system | req/s | tokens/s | × ceiling | p50 | p95 | p99 | max |"
                        + " CPU s/req | peak RSS MiB | compiles | hit ratio | decide µs/req |"
                        + " in flight |\n");
        md.append("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
        for (JsonNode facts : workloads()) {
            String w = facts.path("id").asText();
            JsonNode c = ceilingRow(w, parallelism, 0);
            double tokens = facts.path("tokensPerRequest").asDouble();
            if (c != null) {
                md.append(
                        String.format(
                                Locale.ROOT,
                                "| %s | ceiling (bare ONNX Runtime) | %.1f | %.0f | 1.00 | | | | |"
                                        + " %.4f | | | | | |%n",
                                w,
                                c.path("requestsPerSecond").asDouble(),
                                c.path("tokensPerSecond").asDouble(),
                                c.path("cpuSecondsPerRequest").asDouble()));
            }
            for (String s : SYSTEMS) {
                JsonNode p = phase(s, parallelism, w, "closed", 0);
                if (p == null) {
                    continue;
                }
                double rps = p.path("requestsPerSecond").asDouble();
                int answered = p.path("ok").asInt() + p.path("failed").asInt();
                md.append(
                        String.format(
                                Locale.ROOT,
                                "| %s | %s | %.1f | %.0f | %s | %.0f | %.0f | %.0f | %.0f | %.4f |"
                                        + " %.0f | %s | %s | %s | %d |%n",
                                w,
                                s,
                                rps,
                                rps * tokens,
                                c == null
                                        ? "–"
                                        : String.format(
                                                Locale.ROOT,
                                                "%.2f",
                                                rps / c.path("requestsPerSecond").asDouble()),
                                p.path("latency").path("p50").asDouble(),
                                p.path("latency").path("p95").asDouble(),
                                p.path("latency").path("p99").asDouble(),
                                p.path("latency").path("max").asDouble(),
                                p.path("cpuSecondsPerRequest").asDouble(),
                                p.path("peakRssBytes").asDouble() / (1 << 20),
                                s.equals(ComparisonBench.ZEROLAYER)
                                        ? String.valueOf(p.path("compiles").asInt())
                                        : "–",
                                s.equals(ComparisonBench.ZEROLAYER) && answered > 0
                                        ? String.format(
                                                Locale.ROOT,
                                                "%.3f",
                                                1 - (double) p.path("compiles").asInt() / answered)
                                        : "–",
                                s.equals(ComparisonBench.NAIVE)
                                        ? "–"
                                        : String.format(
                                                Locale.ROOT,
                                                "%.0f",
                                                p.path("meanRouteMicros").asDouble()),
                                p.path("inFlight").asInt()));
            }
        }
        md.append(
                "\n"
                    + "tokens/s: encoder tokens ([CLS]/[SEP] included) of the stream's requests as"
                    + " compiled for this machine, × requests/s. CPU s/req: the whole process"
                    + " (broker, Flink, client and ONNX Runtime; the ceiling only encodes). decide:"
                    + " classify + graph id (zerolayer); classify, features and the tier by size"
                    + " and published score (router). Compiles and hit ratio: graphs compiled"
                    + " during the measured phase, after warm-up.\n\n");
    }

    private void scaling(StringBuilder md) {
        List<String> rows = new ArrayList<>();
        for (JsonNode facts : workloads()) {
            String w = facts.path("id").asText();
            JsonNode c1 = ceilingRow(w, 1, 0);
            JsonNode c2 = ceilingRow(w, parallelism, 0);
            if (c1 != null && c2 != null && parallelism > 1) {
                rows.add(
                        String.format(
                                Locale.ROOT,
                                "| %s | ceiling | %.1f | %.1f | %.2f | | |",
                                w,
                                c1.path("requestsPerSecond").asDouble(),
                                c2.path("requestsPerSecond").asDouble(),
                                c2.path("requestsPerSecond").asDouble()
                                        / c1.path("requestsPerSecond").asDouble()));
            }
            for (String s : SYSTEMS) {
                JsonNode p1 = phase(s, 1, w, "closed", 0);
                JsonNode p2 = phase(s, parallelism, w, "closed", 0);
                if (p1 == null || p2 == null || parallelism == 1) {
                    continue;
                }
                rows.add(
                        String.format(
                                Locale.ROOT,
                                "| %s | %s | %.1f | %.1f | %.2f | %.0f | %.0f |",
                                w,
                                s,
                                p1.path("requestsPerSecond").asDouble(),
                                p2.path("requestsPerSecond").asDouble(),
                                p2.path("requestsPerSecond").asDouble()
                                        / p1.path("requestsPerSecond").asDouble(),
                                p1.path("latency").path("p99").asDouble(),
                                p2.path("latency").path("p99").asDouble()));
            }
        }
        if (rows.isEmpty()) {
            return;
        }
        md.append(
                String.format(
                        Locale.ROOT,
                        "**Scaling with parallelism** (closed loop; the ceiling with as many"
                                + " encoder workers)%n%n| workload | system | req/s p=1 | req/s"
                                + " p=%d | speed-up | p99 ms p=1 | p99 ms p=%d |%n"
                                + "|---|---|--:|--:|--:|--:|--:|%n",
                        parallelism,
                        parallelism));
        rows.forEach(r -> md.append(r).append('\n'));
        md.append('\n');
    }

    private void sizes(StringBuilder md) {
        List<String> rows = new ArrayList<>();
        for (JsonNode p : phases(ComparisonBench.ZEROLAYER, parallelism)) {
            if (!p.path("workload").asText().equals("size")) {
                continue;
            }
            int size = p.path("size").asInt();
            JsonNode c = ceilingRow("size", parallelism, size);
            double rps = p.path("requestsPerSecond").asDouble();
            double tokensPerRequest =
                    c == null ? 0 : c.path("tokens").asDouble() / c.path("requests").asDouble();
            rows.add(
                    String.format(
                            Locale.ROOT,
                            "| %s | %d | %.0f | %.2f | %.0f | %s | %s | %.0f | %.0f | %.3f | %.0f"
                                    + " |",
                            size >= 1 << 20
                                    ? (size >> 20) + " MiB"
                                    : size >= 1024 ? (size >> 10) + " KiB" : size + " B",
                            p.path("ok").asInt(),
                            tokensPerRequest,
                            rps,
                            rps * tokensPerRequest,
                            c == null
                                    ? "–"
                                    : String.format(
                                            Locale.ROOT,
                                            "%.2f",
                                            c.path("requestsPerSecond").asDouble()),
                            c == null
                                    ? "–"
                                    : String.format(
                                            Locale.ROOT,
                                            "%.2f",
                                            rps / c.path("requestsPerSecond").asDouble()),
                            p.path("latency").path("p50").asDouble(),
                            p.path("latency").path("p99").asDouble(),
                            p.path("cpuSecondsPerRequest").asDouble(),
                            p.path("peakRssBytes").asDouble() / (1 << 20)));
        }
        if (rows.isEmpty()) {
            return;
        }
        md.append(
                String.format(
                        Locale.ROOT,
                        "**Document size** (zerolayer, summarize one document a request,"
                                + " parallelism %d)%n%n| size | requests | tokens/req | req/s |"
                                + " tokens/s | ceiling req/s | × ceiling | p50 ms | p99 ms |"
                                + " CPU s/req | peak RSS MiB |%n"
                                + "|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|%n",
                        parallelism));
        rows.forEach(r -> md.append(r).append('\n'));
        md.append('\n');
    }

    private void soak(StringBuilder md) {
        SoakReport.append(system(ComparisonBench.ZEROLAYER, parallelism), md);
    }

    /** The targets, each with its measured value. */
    ArrayNode targets() {
        ArrayNode out = BenchWorker.JSON.createArrayNode();
        for (JsonNode facts : workloads()) {
            String w = facts.path("id").asText();
            JsonNode z = phase(ComparisonBench.ZEROLAYER, parallelism, w, "closed", 0);
            JsonNode c = ceilingRow(w, parallelism, 0);
            if (z != null && c != null) {
                double ratio = rps(z) / c.path("requestsPerSecond").asDouble();
                target(out, "zerolayer ≥ 1.0 × ceiling, " + w, "%.2f ×", ratio, ratio >= 1.0);
            }
        }
        JsonNode tickets =
                phase(
                        ComparisonBench.ZEROLAYER,
                        parallelism,
                        Workload.CUSTOMER_SERVICE.id(),
                        "closed",
                        0);
        if (tickets != null && CpuReport.besidesInference(tickets) >= 0) {
            double besides = CpuReport.besidesInference(tickets);
            target(
                    out,
                    "job's own CPU besides inference ≤ 3 ms a request, customer-service",
                    "%.2f ms",
                    besides,
                    besides <= 3);
        }
        for (String w : List.of(Workload.CUSTOMER_SERVICE.id(), Workload.MIXED.id())) {
            JsonNode z = phase(ComparisonBench.ZEROLAYER, parallelism, w, "closed", 0);
            JsonNode n = phase(ComparisonBench.NAIVE, parallelism, w, "closed", 0);
            JsonNode r = phase(ComparisonBench.ROUTER, parallelism, w, "closed", 0);
            if (z != null && n != null) {
                double ratio = rps(z) / rps(n);
                target(out, "zerolayer ≥ 2 × naive Flink, " + w, "%.2f ×", ratio, ratio >= 2);
            }
            if (z != null && r != null) {
                double ratio = rps(z) / rps(r);
                target(
                        out,
                        "zerolayer ≥ 1.5 × runtime router, " + w,
                        "%.2f ×",
                        ratio,
                        ratio >= 1.5);
            }
            JsonNode z70same = phase(ComparisonBench.ZEROLAYER, parallelism, w, "open", 0.7);
            JsonNode r70 = phase(ComparisonBench.ROUTER, parallelism, w, "open", 0.7);
            if (z70same != null
                    && r70 != null
                    && report.path("options")
                            .path("openLoopBase")
                            .asText()
                            .equals(ComparisonBench.ROUTER)) {
                double ratio = p(z70same, "p95") / p(r70, "p95");
                target(
                        out,
                        "p95 ≤ 0.55 × the router's at the same load (70% of its maximum), " + w,
                        "%.2f × (" + ms(z70same, "p95") + " vs " + ms(r70, "p95") + ")",
                        ratio,
                        ratio <= 0.55);
            }
            JsonNode z70 = phase(ComparisonBench.ZEROLAYER, parallelism, w, "open", 0.7);
            if (z70 != null) {
                double ratio = p(z70, "p99") / p(z70, "p50");
                target(
                        out,
                        "p99 ≤ 2 × p50 at 70% load, " + w,
                        "%.2f × (" + ms(z70, "p99") + " vs " + ms(z70, "p50") + ")",
                        ratio,
                        ratio <= 2);
            }
        }
        JsonNode mixed70 =
                phase(ComparisonBench.ZEROLAYER, parallelism, Workload.MIXED.id(), "open", 0.7);
        JsonNode alone70 =
                phase(
                        ComparisonBench.ZEROLAYER,
                        parallelism,
                        BenchWorker.TICKETS_ALONE,
                        "open",
                        0.7);
        if (mixed70 != null && alone70 != null && mixed70.path("latencyByKind").has("ticket")) {
            double mixedTicket =
                    mixed70.path("latencyByKind").path("ticket").path("p99").asDouble();
            double ratio = mixedTicket / p(alone70, "p99");
            target(
                    out,
                    "ticket p99 on the mixed stream at 70% load ≤ 1.5 × tickets alone at that rate",
                    "%.2f × (" + Math.round(mixedTicket) + " vs " + ms(alone70, "p99") + ")",
                    ratio,
                    ratio <= 1.5);
        }
        JsonNode quietAlone =
                phase(ComparisonBench.ZEROLAYER, parallelism, BenchWorker.QUIET_ALONE, "open", 0.1);
        JsonNode quiet =
                phase(
                        ComparisonBench.ZEROLAYER,
                        parallelism,
                        BenchWorker.QUIET_BESIDE_FLOOD,
                        "open",
                        0.1);
        if (quietAlone != null && quiet != null) {
            double ratio = p(quiet, "p99") / p(quietAlone, "p99");
            target(
                    out,
                    "quiet tenant's p99 beside a tenant flooding at "
                            + report.path("options").path("noisyFlood").asDouble(5)
                            + " × capacity ≤ 2 × its p99 alone",
                    "%.2f × (" + ms(quiet, "p99") + " vs " + ms(quietAlone, "p99") + ")",
                    ratio,
                    ratio <= 2 && quiet.path("lost").asInt() == 0);
        }
        MixedTrafficTargets.add(this, out);
        JsonNode samples = SoakReport.samples(system(ComparisonBench.ZEROLAYER, parallelism));
        if (samples != null) {
            double[] g = SoakReport.growth(samples);
            double growth = g[1] / g[0] - 1;
            target(
                    out,
                    "resident memory flat at 70% load (≤ 5% growth after the first minute)",
                    "%+.1f%%",
                    growth * 100,
                    growth <= 0.05);
        }
        return out;
    }

    static void target(ArrayNode out, String name, String format, double value, boolean met) {
        ObjectNode t = out.addObject();
        t.put("target", name);
        t.put("value", value);
        t.put("measured", String.format(Locale.ROOT, format, value));
        t.put("met", met);
    }

    /** A target whose measurement reads as text of several figures; {@code value} is the first. */
    static void targetMeasured(
            ArrayNode out, String name, String measured, double value, boolean met) {
        ObjectNode t = out.addObject();
        t.put("target", name);
        t.put("value", value);
        t.put("measured", measured);
        t.put("met", met);
    }

    static double rps(JsonNode phase) {
        return phase.path("requestsPerSecond").asDouble();
    }

    static double p(JsonNode phase, String which) {
        return phase.path("latency").path(which).asDouble();
    }

    private static String ms(JsonNode phase, String which) {
        return String.format(Locale.ROOT, "%.0f ms", p(phase, which));
    }

    /** The workloads measured, in order, each with its stream facts and {@code id}. */
    List<JsonNode> workloads() {
        List<JsonNode> out = new ArrayList<>();
        report.path("ceiling")
                .path("work")
                .fields()
                .forEachRemaining(
                        e -> {
                            if (!e.getKey().equals("all")) {
                                ObjectNode n = ((ObjectNode) e.getValue()).deepCopy();
                                n.put("id", e.getKey());
                                out.add(n);
                            }
                        });
        return out;
    }

    private JsonNode system(String name, int p) {
        for (JsonNode s : report.path("systems")) {
            if (s.path("system").asText().equals(name) && s.path("parallelism").asInt() == p) {
                return s;
            }
        }
        return null;
    }

    /** Every phase of a system at parallelism {@code p}, over all its workers (reply modes). */
    List<JsonNode> phases(String system, int p) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode s : report.path("systems")) {
            if (s.path("system").asText().equals(system) && s.path("parallelism").asInt() == p) {
                s.path("phases").forEach(out::add);
            }
        }
        return out;
    }

    /** A system's closed-loop phases at the bench's parallelism. */
    private List<JsonNode> closedLoops(String system) {
        return phases(system, parallelism).stream()
                .filter(ph -> ph.path("mode").asText().equals("closed"))
                .toList();
    }

    /** A phase in the bench's first reply mode (the one its closed loops ran in). */
    JsonNode phase(String system, int p, String workload, String mode, double load) {
        String delivery = report.path("options").path("replyDelivery").asText("");
        for (JsonNode ph : phases(system, p)) {
            if (ph.path("workload").asText().equals(workload)
                    && ph.path("mode").asText().equals(mode)
                    && ph.path("replyDelivery").asText("").equals(delivery)
                    && Math.abs(ph.path("load").asDouble() - load) < 1e-9) {
                return ph;
            }
        }
        return null;
    }

    JsonNode ceilingRow(String workload, int workers, int size) {
        for (JsonNode c : report.path("ceiling").path("ceiling")) {
            if (c.path("workload").asText().equals(workload)
                    && c.path("workers").asInt() == workers
                    && c.path("size").asInt() == size) {
                return c;
            }
        }
        return null;
    }
}
