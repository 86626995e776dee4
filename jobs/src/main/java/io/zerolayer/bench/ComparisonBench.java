package io.zerolayer.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.zerolayer.jobs.ExecutorOptions;
import io.zerolayer.jobs.KafkaOptions;
import io.zerolayer.jobs.ReplyDelivery;
import io.zerolayer.jobs.TenancyOptions;
import io.zerolayer.operators.contracts.TaskContracts;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.flink.configuration.Configuration;

/**
 * The whole comparison: the ceiling, ZeroLayer, the naive Flink job and the runtime router on the
 * same seeded request streams, each in a worker process of its own ({@link BenchWorker}), then one
 * report — a Markdown table on the terminal and in {@code bench-results/latest.md}, every figure as
 * JSON in {@code bench-results/bench-<time>.json}.
 */
public final class ComparisonBench {
    public static final String ZEROLAYER = "zerolayer";
    public static final String NAIVE = BaselineJob.Kind.NAIVE.id;
    public static final String ROUTER = BaselineJob.Kind.ROUTER.id;

    /** The systems measured against the ceiling, in report order. */
    public static final List<String> SYSTEMS = List.of(ZEROLAYER, NAIVE, ROUTER);

    public static final String CEILING = "ceiling";

    /** What to run. */
    public record Options(
            long seed,
            int parallelism,
            List<String> systems,
            List<Workload> workloads,
            List<Workload> openLoopWorkloads,
            List<Double> loads,
            List<Integer> sizes,
            List<Integer> sizeRequests,
            boolean scaling,
            double warmupSeconds,
            double measureSeconds,
            double openLoopSeconds,
            int window,
            double inFlightSeconds,
            Duration checkpointInterval,
            double soakSeconds,
            double noisyFlood,
            List<String> workerJvmOptions,
            Path outDir,
            Configuration conf,
            List<ReplyDelivery> deliveries) {}

    private ComparisonBench() {}

    /** The tier the labelled stream is also run pinned to: the highest published MTEB score. */
    static final String PINNED_TIER = "bge-small-en-v1.5-fp32";

    /**
     * The shipped quality profile with only {@code tier}'s figures: the compiler can choose no
     * other.
     */
    static String onlyTier(String tier) throws IOException {
        try (var in =
                ComparisonBench.class.getResourceAsStream("/zerolayer/quality-profiles.yaml")) {
            if (in == null) {
                throw new IOException("The shipped quality profile is not on the classpath");
            }
            return io.zerolayer.operators.eval.QualityProfiles.onlyTier(
                    new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8), tier);
        }
    }

    /** Runs the comparison; returns the JSON file written. */
    public static Path run(Options o) throws Exception {
        Files.createDirectories(o.outDir());
        long started = System.nanoTime();
        String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        Path work = Files.createTempDirectory("zerolayer-bench-");
        String contracts = benchContracts();
        Path contractsFile = work.resolve("tasks.yaml");
        Files.writeString(contractsFile, contracts);
        Configuration conf = new Configuration(o.conf());
        conf.set(TenancyOptions.CONTRACTS_FILE, contractsFile.toString());
        conf.set(ExecutorOptions.CHECKPOINT_INTERVAL, o.checkpointInterval());
        Map<String, String> flinkConf = conf.toMap();
        List<String> all = o.workloads().stream().map(Workload::id).toList();
        List<String> open = o.openLoopWorkloads().stream().map(Workload::id).toList();
        int p = o.parallelism();

        ObjectNode report = BenchWorker.JSON.createObjectNode();
        report.put("startedAt", stamp);
        report.set("machine", RunDescription.machine(conf));
        report.set("options", RunDescription.options(o));
        ArrayNode systems = report.putArray("systems");

        boolean soakOnly = o.soakSeconds() > 0;
        List<Integer> workers = o.scaling() && p > 1 ? List.of(1, p) : List.of(p);
        JsonNode ceiling =
                runWorker(
                        o,
                        work,
                        plan(
                                o,
                                CEILING,
                                p,
                                all,
                                open,
                                soakOnly ? List.of() : o.sizes(),
                                flinkConf,
                                contracts,
                                Map.of(),
                                workers,
                                0,
                                null,
                                Map.of()));
        report.set("ceiling", ceiling);
        Map<String, Map<String, String>> taskModels = new LinkedHashMap<>();
        Map<String, String> table = new LinkedHashMap<>();
        ceiling.path("work")
                .path("all")
                .path("taskModels")
                .fields()
                .forEachRemaining(e -> table.put(e.getKey(), e.getValue().asText()));
        taskModels.put("all", table);

        if (soakOnly) {
            systems.add(
                    runWorker(
                            o,
                            work,
                            plan(
                                    o,
                                    ZEROLAYER,
                                    p,
                                    all.subList(0, 1),
                                    List.of(),
                                    List.of(),
                                    flinkConf,
                                    contracts,
                                    taskModels,
                                    List.of(),
                                    o.soakSeconds(),
                                    ceiling,
                                    Map.of())));
        } else {
            // the router first: its maximum is the offered load every system's open loop gets
            List<String> order = new java.util.ArrayList<>(o.systems());
            Map<String, Double> base = new LinkedHashMap<>();
            if (order.remove(ROUTER)) {
                order.add(0, ROUTER);
            }
            List<ReplyDelivery> deliveries = o.deliveries();
            Map<String, Map<String, Double>> ownMax = new LinkedHashMap<>();
            for (String system : order) {
                JsonNode result =
                        runWorker(
                                o,
                                work,
                                plan(
                                        o,
                                        system,
                                        p,
                                        all,
                                        open,
                                        system.equals(ZEROLAYER) ? o.sizes() : List.of(),
                                        withDelivery(flinkConf, deliveries.get(0)),
                                        contracts,
                                        taskModels,
                                        List.of(),
                                        0,
                                        ceiling,
                                        base));
                systems.add(result);
                ownMax.put(system, closedLoopMaxima(result));
                if (system.equals(ROUTER)) {
                    base.putAll(closedLoopMaxima(result));
                }
            }
            // the open loops again in each other reply mode, at the same rates
            for (ReplyDelivery delivery : deliveries.subList(1, deliveries.size())) {
                for (String system : order) {
                    systems.add(
                            runWorker(
                                    o,
                                    work,
                                    plan(
                                            o,
                                            system,
                                            p,
                                            List.of(),
                                            open,
                                            List.of(),
                                            withDelivery(flinkConf, delivery),
                                            contracts,
                                            taskModels,
                                            List.of(),
                                            0,
                                            ceiling,
                                            base.isEmpty() ? ownMax.get(system) : base)));
                }
            }
            String unique = Workload.UNIQUE.id();
            if (o.systems().contains(ZEROLAYER) && all.contains(unique)) {
                // nothing of unique repeats: the embedding cache's lookups must not slow it down
                Map<String, String> cacheOff = new LinkedHashMap<>(flinkConf);
                cacheOff.put("zerolayer.embedding-cache.size", "0b");
                report.set(
                        "uniqueWithoutCache",
                        runWorker(
                                o,
                                work,
                                plan(
                                        o,
                                        ZEROLAYER,
                                        p,
                                        List.of(unique),
                                        List.of(),
                                        List.of(),
                                        withDelivery(cacheOff, deliveries.get(0)),
                                        contracts,
                                        taskModels,
                                        List.of(),
                                        0,
                                        ceiling,
                                        Map.of())));
            }
            String labelled = Workload.LABELLED.id();
            if (o.systems().contains(ZEROLAYER) && all.contains(labelled)) {
                // the labelled stream again, every plan pinned to the best published tier: what
                // the compiler's choice is measured against, in accuracy and CPU
                Map<String, String> pinned = new LinkedHashMap<>(flinkConf);
                Path profile = work.resolve("quality-bge-fp32-only.yaml");
                Files.writeString(profile, onlyTier(PINNED_TIER));
                pinned.put("zerolayer.quality-profiles.file", profile.toString());
                report.set(
                        "labelledPinned",
                        runWorker(
                                o,
                                work,
                                plan(
                                        o,
                                        ZEROLAYER,
                                        p,
                                        List.of(labelled),
                                        List.of(),
                                        List.of(),
                                        withDelivery(pinned, deliveries.get(0)),
                                        contracts,
                                        taskModels,
                                        List.of(),
                                        0,
                                        ceiling,
                                        Map.of())));
            }
            if (o.scaling() && p > 1) {
                for (String system : o.systems()) {
                    systems.add(
                            runWorker(
                                    o,
                                    work,
                                    plan(
                                            o,
                                            system,
                                            1,
                                            open,
                                            List.of(),
                                            List.of(),
                                            flinkConf,
                                            contracts,
                                            taskModels,
                                            List.of(),
                                            0,
                                            ceiling,
                                            Map.of())));
                }
            }
        }
        report.put("wallSeconds", (System.nanoTime() - started) / 1e9);
        BenchReport figures = new BenchReport(report);
        report.set("targets", figures.targets());
        String markdown = figures.markdown();
        // a soak has files of its own, so it does not replace the latest comparison's table
        Path json = o.outDir().resolve((soakOnly ? "soak-" : "bench-") + stamp + ".json");
        Path latest = o.outDir().resolve(soakOnly ? "latest-soak.md" : "latest.md");
        Files.writeString(json, BenchWorker.JSON.writeValueAsString(report));
        Files.writeString(latest, markdown);
        System.out.println();
        System.out.println(markdown);
        System.out.printf(
                Locale.ROOT,
                "Figures: %s and %s (%.0f s in all)%n",
                json,
                latest,
                (System.nanoTime() - started) / 1e9);
        return json;
    }

    /** {@code flinkConf} with replies delivered as {@code delivery}. */
    private static Map<String, String> withDelivery(
            Map<String, String> flinkConf, ReplyDelivery delivery) {
        Map<String, String> conf = new LinkedHashMap<>(flinkConf);
        conf.put(KafkaOptions.REPLY_DELIVERY.key(), delivery.toString());
        return conf;
    }

    /** A worker's closed-loop requests per second, by workload. */
    private static Map<String, Double> closedLoopMaxima(JsonNode worker) {
        Map<String, Double> max = new LinkedHashMap<>();
        for (JsonNode phase : worker.path("phases")) {
            if (phase.path("mode").asText().equals("closed")) {
                max.put(
                        phase.path("workload").asText(),
                        phase.path("requestsPerSecond").asDouble());
            }
        }
        return max;
    }

    /**
     * The built-in contracts plus {@value Workload#LARGE_SUMMARY_TASK}: summarize without the 200
     * 000-character limit, so size scaling can reach 1 MB in one request.
     */
    static String benchContracts() {
        String yaml = TaskContracts.builtIn().source().stripTrailing();
        String extra =
                "\n  "
                        + Workload.LARGE_SUMMARY_TASK
                        + ":\n    decoder: summarize\n    output-formats: [json, text]\n"
                        + "    attributes: {sentences: {type: int, min: 1, max: 50}}\n"
                        + "    max-chars: "
                        + Workload.LARGE_SUMMARY_MAX_CHARS
                        + "\n";
        String merged = yaml + extra;
        TaskContracts parsed = TaskContracts.parse(merged);
        if (parsed.task(Workload.LARGE_SUMMARY_TASK) == null) {
            throw new IllegalStateException(
                    "The built-in tasks.yaml no longer ends in its tasks section");
        }
        return merged;
    }

    private static BenchPlan plan(
            Options o,
            String system,
            int parallelism,
            List<String> closed,
            List<String> open,
            List<Integer> sizes,
            Map<String, String> flinkConf,
            String contracts,
            Map<String, Map<String, String>> taskModels,
            List<Integer> ceilingWorkers,
            double soakSeconds,
            JsonNode ceiling,
            Map<String, Double> openLoopBase) {
        return new BenchPlan(
                system,
                parallelism,
                o.seed(),
                closed,
                open,
                o.loads(),
                openLoopBase,
                sizes,
                o.sizeRequests().subList(0, sizes.size()),
                o.warmupSeconds(),
                o.measureSeconds(),
                o.openLoopSeconds(),
                o.window(),
                ceiling == null ? Map.of() : windows(o, ceiling, parallelism, closed),
                flinkConf,
                contracts,
                taskModels,
                ceilingWorkers,
                soakSeconds,
                // once, on zerolayer's full pass: it needs the customer-service maximum
                o.noisyFlood() > 0
                                && system.equals(ZEROLAYER)
                                && soakSeconds == 0
                                && parallelism == o.parallelism()
                                && closed.contains(Workload.CUSTOMER_SERVICE.id())
                        ? o.noisyFlood()
                        : 0,
                null);
    }

    /**
     * Requests in flight in each workload's closed loop: {@code inFlightSeconds} of the ceiling's
     * work at this parallelism — enough to fill every slot's micro-batches, not so many that the
     * queue outgrows the warm-up — at least 2 a slot, at most {@code window}. Every system gets the
     * same number, so closed-loop latencies compare.
     */
    static Map<String, Integer> windows(
            Options o, JsonNode ceiling, int parallelism, List<String> workloads) {
        Map<String, Integer> out = new LinkedHashMap<>();
        for (String w : workloads) {
            double rps = 0;
            for (JsonNode row : ceiling.path("ceiling")) {
                if (row.path("workload").asText().equals(w)
                        && row.path("workers").asInt() == parallelism) {
                    rps = row.path("requestsPerSecond").asDouble();
                }
            }
            int wanted = (int) Math.round(rps * o.inFlightSeconds());
            out.put(w, Math.max(2 * parallelism, Math.min(o.window(), wanted)));
        }
        return out;
    }

    /**
     * Runs one plan in a fresh JVM of the same command line plus the workers' JVM options (the same
     * for every system); returns its figures.
     */
    private static JsonNode runWorker(Options o, Path work, BenchPlan plan) throws Exception {
        String name = plan.system() + "-p" + plan.parallelism();
        Path planFile = work.resolve(name + ".plan.json");
        Path out = work.resolve(name + ".json");
        Files.writeString(
                planFile, BenchWorker.JSON.writeValueAsString(plan.writingTo(out.toString())));
        List<String> command = new ArrayList<>();
        command.add(
                ProcessHandle.current()
                        .info()
                        .command()
                        .orElse(
                                Path.of(System.getProperty("java.home"), "bin", "java")
                                        .toString()));
        for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (!arg.startsWith("-agentlib") && !arg.startsWith("-javaagent")) {
                command.add(arg);
            }
        }
        command.addAll(o.workerJvmOptions());
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(BenchWorker.class.getName());
        command.add(planFile.toString());
        Process process = new ProcessBuilder(command).inheritIO().start();
        int rc = process.waitFor();
        if (rc != 0 || !Files.exists(out)) {
            throw new IllegalStateException(
                    "Benchmark worker " + name + " failed (exit " + rc + "); see its output above");
        }
        return BenchWorker.JSON.readTree(out.toFile());
    }
}
