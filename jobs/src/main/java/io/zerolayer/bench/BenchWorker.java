package io.zerolayer.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.zerolayer.client.ZeroLayerClient;
import io.zerolayer.embedded.DemoTenant;
import io.zerolayer.embedded.EmbeddedKafkaBroker;
import io.zerolayer.embedded.EmbeddedPipeline;
import io.zerolayer.gpu.EncoderModel;
import io.zerolayer.jobs.HardwareOptions;
import io.zerolayer.jobs.KafkaOptions;
import io.zerolayer.operators.contracts.TaskContracts;
import io.zerolayer.operators.execution.EncoderPool;
import io.zerolayer.schemas.auth.TenantCredentials;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * One benchmark process: measures one system at one parallelism as its {@link BenchPlan} says and
 * writes the figures as JSON. Each system runs in a process of its own so its CPU time and peak
 * resident memory are its own (the broker, started by each worker, is counted with every system
 * that uses Kafka).
 */
public final class BenchWorker {
    static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private BenchWorker() {}

    public static void main(String[] args) throws Exception {
        BenchPlan plan = JSON.readValue(Path.of(args[0]).toFile(), BenchPlan.class);
        ObjectNode result = JSON.createObjectNode();
        result.put("system", plan.system());
        result.put("parallelism", plan.parallelism());
        long started = System.nanoTime();
        if (plan.system().equals("ceiling")) {
            ceiling(plan, result);
        } else {
            system(plan, result);
        }
        result.put("wallSeconds", (System.nanoTime() - started) / 1e9);
        Files.writeString(Path.of(plan.out()), JSON.writeValueAsString(result));
        System.exit(0); // Flink and Kafka leave non-daemon threads behind
    }

    private static int ceilingRequests(Workload w) {
        return switch (w) {
            case CUSTOMER_SERVICE, UNIQUE, MIXED, LABELLED -> 400;
            case LONG_PAPERS -> 30;
            case CONTRACT_REVIEW -> 60;
        };
    }

    private static void ceiling(BenchPlan plan, ObjectNode result) throws Exception {
        TaskContracts contracts = TaskContracts.parse(plan.contractsYaml());
        Configuration conf = Configuration.fromMap(plan.flinkConf());
        String hardware = conf.get(HardwareOptions.HARDWARE_PROFILE);
        int threads = conf.get(HardwareOptions.INTRA_OP_THREADS);
        ArrayNode rows = result.putArray("ceiling");
        ObjectNode work = result.putObject("work");
        List<EncoderWork> everything = new java.util.ArrayList<>();
        try (EncoderPool pool = new EncoderPool(threads)) {
            for (String id : plan.closedLoop()) {
                Workload w = Workload.byId(id);
                EncoderWork encoderWork =
                        EncoderWork.of(
                                w.take(plan.seed(), ceilingRequests(w)),
                                contracts,
                                hardware,
                                threads,
                                pool);
                everything.add(encoderWork);
                ObjectNode facts = work.putObject(id);
                facts.put("requests", encoderWork.items().size());
                facts.put("tokensPerRequest", encoderWork.tokensPerRequest());
                facts.put(
                        "sequencesPerRequest",
                        (double) encoderWork.sequences() / encoderWork.items().size());
                ObjectNode models = facts.putObject("taskModels");
                encoderWork.taskModels().forEach((task, model) -> models.put(task, model.id()));
                facts.put("tokensOffTaskModel", encoderWork.tokensOffTaskModel());
                for (int workers : plan.ceilingWorkers()) {
                    if (workers != plan.parallelism() && !plan.openLoop().contains(id)) {
                        continue; // the scaling runs measure only the open-loop workloads
                    }
                    progress("ceiling", id + " × " + workers + " worker(s)");
                    rows.add(
                            ceilingRow(
                                    id,
                                    0,
                                    Ceiling.measure(
                                            encoderWork,
                                            workers,
                                            threads,
                                            Math.min(plan.measureSeconds(), 5))));
                }
            }
            if (!everything.isEmpty()) {
                // one table for the naive job, which serves every workload with one set of sessions
                EncoderWork all = EncoderWork.merge(everything);
                ObjectNode facts = work.putObject("all");
                ObjectNode models = facts.putObject("taskModels");
                all.taskModels().forEach((task, model) -> models.put(task, model.id()));
                facts.put("tokensOffTaskModel", all.tokensOffTaskModel());
            }
            for (int i = 0; i < plan.sizes().size(); i++) {
                int size = plan.sizes().get(i);
                EncoderWork encoderWork =
                        EncoderWork.of(
                                Workload.documentsOfSize(
                                        size, plan.sizeRequests().get(i), plan.seed()),
                                contracts,
                                hardware,
                                threads,
                                pool);
                progress("ceiling", "documents of " + size + " characters");
                rows.add(
                        ceilingRow(
                                "size",
                                size,
                                Ceiling.measure(
                                        encoderWork,
                                        plan.parallelism(),
                                        threads,
                                        Math.min(plan.measureSeconds(), 4))));
            }
        }
    }

    private static ObjectNode ceilingRow(String workload, int size, Ceiling.Result r) {
        ObjectNode row = JSON.valueToTree(r);
        row.put("workload", workload);
        row.put("size", size);
        return row;
    }

    private static void system(BenchPlan plan, ObjectNode result) throws Exception {
        Configuration conf = Configuration.fromMap(plan.flinkConf());
        replyDelivery = conf.get(KafkaOptions.REPLY_DELIVERY).toString();
        result.put("replyDelivery", replyDelivery);
        int p = plan.parallelism();
        NoisyNeighbours neighbours = plan.noisyFlood() > 0 ? NoisyNeighbours.configure(conf) : null;
        progress(plan.system(), "starting (parallelism " + p + ")");
        try (Target target = Target.start(plan, conf, p);
                ZeroLayerClient client = target.client(conf)) {
            // every system bills the embedded modes' tenant; zerolayer verifies its signatures
            LoadDriver driver = new LoadDriver(client, DemoTenant.ID);
            // untimed: sessions open, the common graphs compile and the JIT warms before any
            // phase is measured (the streams' seeds differ, so measured requests are new)
            long readyFrom = System.nanoTime();
            for (String id : plan.closedLoop()) {
                driver.fixed(Workload.byId(id).take(plan.seed() + 1000, 4 * p), 4 * p);
            }
            result.put("readySeconds", (System.nanoTime() - readyFrom) / 1e9);
            progress(
                    plan.system(),
                    String.format(
                            Locale.ROOT,
                            "warm after %.1f s",
                            (System.nanoTime() - readyFrom) / 1e9));
            ArrayNode rows = result.putArray("phases");
            Map<String, Double> max = new LinkedHashMap<>();
            for (String id : plan.closedLoop()) {
                int inFlight = plan.windows().getOrDefault(id, plan.window());
                progress(plan.system(), id + ", closed loop, " + inFlight + " in flight");
                LoadDriver.Phase phase =
                        driver.closedLoop(
                                Workload.byId(id).stream(plan.seed()),
                                inFlight,
                                plan.warmupSeconds(),
                                plan.measureSeconds());
                max.put(id, phase.requestsPerSecond());
                ObjectNode row = row(id, 0, 0, phase);
                row.put("inFlight", inFlight);
                rows.add(row);
                report(plan.system(), phase);
            }
            // a worker that measures open loops only (another reply mode) has not warmed up in a
            // closed loop: its first open loop warms up as long as a closed loop would
            boolean cold = plan.closedLoop().isEmpty();
            for (String id : plan.openLoop()) {
                for (double load : plan.loads()) {
                    double rate =
                            Math.max(0.5, load * plan.openLoopBase().getOrDefault(id, max.get(id)));
                    progress(
                            plan.system(),
                            String.format(
                                    Locale.ROOT,
                                    "%s, open loop at %.0f%% (%.1f/s)",
                                    id,
                                    load * 100,
                                    rate));
                    // a fresh seed per phase, so each phase's requests are new to the caches
                    // the way traffic is, yet the same for every system
                    LoadDriver.Phase phase =
                            driver.openLoop(
                                    Workload.byId(id).stream(plan.seed() + Math.round(load * 100)),
                                    rate,
                                    cold ? Math.max(2, plan.warmupSeconds()) : 2,
                                    plan.openLoopSeconds());
                    cold = false;
                    rows.add(row(id, load, 0, phase));
                    report(plan.system(), phase);
                    Latencies tickets = phase.latencyByKind().get("ticket");
                    if (id.equals(Workload.MIXED.id()) && tickets != null && tickets.count() > 0) {
                        // the mixed stream's tickets alone, at the rate they came in it: what the
                        // other requests of the mixed stream cost a ticket
                        double ticketRate = tickets.count() / phase.seconds();
                        progress(
                                plan.system(),
                                String.format(
                                        Locale.ROOT,
                                        "customer-service alone at the mixed stream's ticket rate"
                                                + " (%.1f/s)",
                                        ticketRate));
                        LoadDriver.Phase alone =
                                driver.openLoop(
                                        Workload.CUSTOMER_SERVICE.stream(
                                                plan.seed() + Math.round(load * 100)),
                                        ticketRate,
                                        2,
                                        plan.openLoopSeconds());
                        rows.add(row(TICKETS_ALONE, load, 0, alone));
                        report(plan.system(), alone);
                    }
                }
            }
            for (int i = 0; i < plan.sizes().size(); i++) {
                int size = plan.sizes().get(i);
                progress(plan.system(), "documents of " + size + " characters");
                if (size <= 100_000) {
                    // one document first, untimed, so its graph is compiled and its code warm;
                    // above 100 KB a document's encoding dwarfs both (a 1 MB one takes a minute)
                    driver.fixed(Workload.documentsOfSize(size, 1, plan.seed() + 1), 1);
                }
                int count = plan.sizeRequests().get(i);
                LoadDriver.Phase phase =
                        driver.fixed(
                                Workload.documentsOfSize(size, count, plan.seed()),
                                Math.max(p, Math.min(plan.window(), count / 2)));
                rows.add(row("size", 0, size, phase));
                report(plan.system(), phase);
            }
            if (neighbours != null && max.containsKey(Workload.CUSTOMER_SERVICE.id())) {
                neighbours.measure(
                        plan,
                        target.pipeline(),
                        conf,
                        max.get(Workload.CUSTOMER_SERVICE.id()),
                        rows);
            }
            if (plan.soakSeconds() > 0) {
                soak(plan, driver, max, result);
            }
        }
    }

    /** The soak: open loop at loads[0] × max for soakSeconds, resident memory every 10 s. */
    private static void soak(
            BenchPlan plan, LoadDriver driver, Map<String, Double> max, ObjectNode result)
            throws Exception {
        String id = plan.closedLoop().get(0);
        double rate = plan.loads().get(0) * max.get(id);
        ArrayNode samples = result.putArray("soak");
        long start = System.nanoTime();
        Thread sampler =
                new Thread(
                        () -> {
                            while (!Thread.currentThread().isInterrupted()) {
                                ObjectNode s = JSON.createObjectNode();
                                s.put("seconds", (System.nanoTime() - start) / 1e9);
                                s.put("rssBytes", ProcessStats.rssBytes());
                                s.put("heapUsedBytes", usedHeap());
                                synchronized (samples) {
                                    samples.add(s);
                                }
                                try {
                                    Thread.sleep(10_000);
                                } catch (InterruptedException e) {
                                    return;
                                }
                            }
                        },
                        "soak-sampler");
        sampler.setDaemon(true);
        sampler.start();
        progress(
                plan.system(),
                String.format(
                        Locale.ROOT,
                        "soak: %s at %.1f/s for %.0f s",
                        id,
                        rate,
                        plan.soakSeconds()));
        LoadDriver.Phase phase =
                driver.openLoop(
                        Workload.byId(id).stream(plan.seed() + 7), rate, 0, plan.soakSeconds());
        sampler.interrupt();
        sampler.join();
        result.set("soakPhase", row(id, plan.loads().get(0), 0, phase));
        report(plan.system(), phase);
    }

    private static long usedHeap() {
        Runtime rt = Runtime.getRuntime();
        return rt.totalMemory() - rt.freeMemory();
    }

    /** How this worker's job delivers replies, for its rows. */
    private static String replyDelivery = "";

    /** Workload ids of the noisy-neighbour phases: the quiet tenant alone, beside the flood. */
    static final String QUIET_ALONE = "noisy-neighbour-quiet-alone";

    static final String QUIET_BESIDE_FLOOD = "noisy-neighbour-quiet";
    static final String FLOOD = "noisy-neighbour-flood";

    /** Workload id of the customer-service phase run at the mixed stream's ticket rate. */
    static final String TICKETS_ALONE = "customer-service-at-mixed-ticket-rate";

    static ObjectNode row(String workload, double load, int size, LoadDriver.Phase phase) {
        ObjectNode row = JSON.valueToTree(phase);
        row.put("replyDelivery", replyDelivery);
        row.put("workload", workload);
        row.put("load", load);
        row.put("size", size);
        return row;
    }

    static void report(String system, LoadDriver.Phase p) {
        progress(
                system,
                String.format(
                        Locale.ROOT,
                        "  %d sent, %d OK, %d failed, %d lost: %.1f req/s, p50 %.0f ms, p99 %.0f"
                                + " ms (answer ready → reply: p50 %.0f ms)",
                        p.sent(),
                        p.ok(),
                        p.failed(),
                        p.lost(),
                        p.requestsPerSecond(),
                        p.latency().p50(),
                        p.latency().p99(),
                        p.delivery().p50()));
        if (p.graded() > 0) {
            progress(
                    system,
                    String.format(
                            Locale.ROOT,
                            "  %d of %d labelled answers right (%.1f %%)",
                            p.right(),
                            p.graded(),
                            100.0 * p.right() / p.graded()));
        }
    }

    static void progress(String system, String message) {
        System.out.printf(Locale.ROOT, "[%-14s] %s%n", system, message);
        System.out.flush();
    }

    /** A running system under test: its broker and job. */
    private static final class Target implements AutoCloseable {
        private final AutoCloseable resources;
        private final String bootstrap;
        private final TenantCredentials credentials;
        private final EmbeddedPipeline pipeline;

        private Target(AutoCloseable resources, String bootstrap, TenantCredentials credentials) {
            this.resources = resources;
            this.bootstrap = bootstrap;
            this.credentials = credentials;
            this.pipeline = null;
        }

        /** Zerolayer's embedded pipeline. */
        private Target(EmbeddedPipeline pipeline) {
            this.resources = pipeline;
            this.bootstrap = pipeline.bootstrapServers();
            this.credentials = pipeline.credentials().orElse(null);
            this.pipeline = pipeline;
        }

        /** Zerolayer's pipeline; null for a baseline. */
        EmbeddedPipeline pipeline() {
            return pipeline;
        }

        String bootstrapServers() {
            return bootstrap;
        }

        /** A client of the system; it signs where the system verifies (zerolayer's default). */
        ZeroLayerClient client(Configuration conf) {
            if (pipeline != null) {
                return pipeline.client().timeout(Duration.ofMinutes(5)).build();
            }
            ZeroLayerClient.Builder builder =
                    ZeroLayerClient.builder()
                            .bootstrapServers(bootstrap)
                            .requestsTopic(conf.get(KafkaOptions.REQUESTS_TOPIC))
                            .timeout(Duration.ofMinutes(5));
            if (credentials != null) {
                builder.credentials(credentials);
            }
            return builder.build();
        }

        static Target start(BenchPlan plan, Configuration conf, int p) throws Exception {
            if (plan.system().equals("zerolayer")) {
                // SASL/SCRAM and ACLs, as serve runs: the noisy neighbours have broker quotas
                EmbeddedPipeline pipeline = EmbeddedPipeline.start(conf, null, p);
                return new Target(pipeline);
            }
            BaselineJob.Kind kind =
                    plan.system().equals(BaselineJob.Kind.NAIVE.id)
                            ? BaselineJob.Kind.NAIVE
                            : BaselineJob.Kind.ROUTER;
            EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(null);
            try {
                Configuration c = new Configuration(conf);
                c.set(KafkaOptions.BOOTSTRAP_SERVERS, broker.bootstrapServers());
                broker.createTopics(
                        Map.of(
                                c.get(KafkaOptions.REQUESTS_TOPIC),
                                p,
                                c.get(KafkaOptions.RESPONSES_TOPIC),
                                1));
                Map<String, EncoderModel> models = new LinkedHashMap<>();
                plan.taskModels()
                        .values()
                        .forEach(m -> m.forEach((t, id) -> models.put(t, EncoderModel.byId(id))));
                StreamExecutionEnvironment env =
                        StreamExecutionEnvironment.createLocalEnvironment(p, c);
                BaselineJob.define(env, c, kind, plan.contractsYaml(), models);
                JobClient job = env.executeAsync(kind.id);
                long deadline = System.nanoTime() + 60_000_000_000L;
                while (job.getJobStatus().get() != JobStatus.RUNNING) {
                    if (System.nanoTime() > deadline
                            || job.getJobStatus().get().isGloballyTerminalState()) {
                        throw new IllegalStateException(kind.id + " job did not start");
                    }
                    Thread.sleep(100);
                }
                return new Target(
                        () -> {
                            job.cancel().get();
                            broker.close();
                        },
                        broker.bootstrapServers(),
                        null);
            } catch (Exception | Error e) {
                broker.close();
                throw e;
            }
        }

        @Override
        public void close() throws Exception {
            resources.close();
        }
    }
}
