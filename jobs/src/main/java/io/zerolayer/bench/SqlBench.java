package io.zerolayer.bench;

import io.zerolayer.client.ZeroLayerClient;
import io.zerolayer.embedded.DemoTenant;
import io.zerolayer.embedded.EmbeddedPipeline;
import io.zerolayer.operators.documents.AnalysisTask;
import io.zerolayer.operators.documents.DocumentFormat;
import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.AnalysisResponse;
import io.zerolayer.schemas.ResponseStatus;
import java.io.PrintStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.api.config.ExecutionConfigOptions;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

/**
 * Rows per second through Flink SQL's {@code ML_PREDICT} on a ZeroLayer model against the streaming
 * job, on the same documents and task: customer-service tickets of the benchmark's phrase banks,
 * classified into its five triage labels. Both run in this JVM on a local Flink of the same
 * parallelism; the streaming job on the embedded broker, fed by a client that keeps {@value
 * #IN_FLIGHT} requests (by default) in flight, and ML_PREDICT with as many rows in flight over its
 * subtasks ({@code table.exec.async-ml-predict.max-concurrent-operations}, a subtask's; Flink's
 * default is 10). Each is warmed up on other tickets first. The SQL query is a bounded job of its
 * own, so its figure includes submitting it and opening its ONNX sessions; the rate from its first
 * row to its last is given too.
 */
public final class SqlBench {
    private SqlBench() {}

    /** In flight at once by default: the streaming client's window, ML_PREDICT's in all. */
    public static final int IN_FLIGHT = 100;

    /**
     * One system's run.
     *
     * @param seconds from the first row sent (the query submitted) to the last answer
     * @param steadySeconds from the first answer to the last
     * @param submitSeconds planning and submitting the query (0 for the running streaming job)
     * @param firstSeconds from the start to the first answer
     */
    public record Result(
            String system,
            int rows,
            int ok,
            double seconds,
            double steadySeconds,
            double submitSeconds,
            double firstSeconds) {
        public double rowsPerSecond() {
            return rows / seconds;
        }

        public double steadyRowsPerSecond() {
            return (rows - 1) / steadySeconds;
        }
    }

    /** The task both systems run on every ticket. */
    static AnalysisTask task() {
        return AnalysisTask.builder("classify").labels(PhraseBanks.TRIAGE_LABELS).build();
    }

    /** {@code count} tickets of the seeded stream. */
    static List<String> tickets(long seed, int count) {
        Workload.Stream stream = Workload.UNIQUE.stream(seed);
        List<String> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            out.add(stream.ticketText());
        }
        return out;
    }

    /** Runs both systems on {@code rows} tickets, after {@code warmup} others. */
    public static List<Result> run(
            int rows, int warmup, int parallelism, int inFlight, long seed, PrintStream log)
            throws Exception {
        List<String> measured = tickets(seed, rows);
        List<String> warm = tickets(seed + 1, warmup);
        List<Result> results = new ArrayList<>();
        log.printf(Locale.ROOT, "ML_PREDICT: %d tickets after %d to warm up …%n", rows, warmup);
        results.add(sql(warm, parallelism, inFlight, "warm-up"));
        Result sql = sql(measured, parallelism, inFlight, "ml_predict");
        results.add(sql);
        log.println("  " + describe(sql));
        log.printf(Locale.ROOT, "streaming job: the same %d tickets …%n", rows);
        Result streaming = streaming(warm, measured, parallelism, inFlight);
        results.add(streaming);
        log.println("  " + describe(streaming));
        return results.subList(1, results.size());
    }

    static String describe(Result r) {
        return String.format(
                Locale.ROOT,
                "%-14s %5d rows (%d OK) in %6.2f s: %7.1f rows/s; first answer after %.2f s"
                        + " (submitted after %.2f s), then %7.1f rows/s",
                r.system(),
                r.rows(),
                r.ok(),
                r.seconds(),
                r.rowsPerSecond(),
                r.firstSeconds(),
                r.submitSeconds(),
                r.steadyRowsPerSecond());
    }

    private static Result sql(List<String> tickets, int parallelism, int inFlight, String name)
            throws Exception {
        Configuration conf = new Configuration();
        // a values source of thousands of rows needs more than a local cluster's 64 MB default
        conf.set(TaskManagerOptions.NETWORK_MEMORY_MIN, MemorySize.parse("256m"));
        conf.set(TaskManagerOptions.NETWORK_MEMORY_MAX, MemorySize.parse("256m"));
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.createLocalEnvironment(parallelism, conf);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        // as many rows in flight in all as the streaming side keeps (Flink: 10 a subtask)
        tEnv.getConfig()
                .set(
                        ExecutionConfigOptions
                                .TABLE_EXEC_ASYNC_ML_PREDICT_MAX_CONCURRENT_OPERATIONS,
                        Math.max(1, inFlight / parallelism));
        // a table over a collection source: a VALUES literal of thousands of rows is slow to plan
        tEnv.createTemporaryView(
                "tickets",
                tEnv.fromDataStream(
                                env.fromData(tickets)
                                        .returns(org.apache.flink.api.common.typeinfo.Types.STRING))
                        .as("doc"));
        tEnv.executeSql(
                "CREATE TEMPORARY MODEL triage INPUT (doc STRING) OUTPUT (label STRING, status"
                        + " STRING) WITH ('provider' = 'zerolayer', 'task' = 'classify', 'labels'"
                        + " = '"
                        + PhraseBanks.TRIAGE_LABELS
                        + "')");
        long start = System.nanoTime();
        long first = 0;
        int rows = 0;
        int ok = 0;
        var result =
                tEnv.executeSql(
                        "SELECT label, status FROM ML_PREDICT(TABLE tickets, MODEL triage,"
                                + " DESCRIPTOR(doc))");
        long submitted = System.nanoTime();
        try (CloseableIterator<Row> it = result.collect()) {
            while (it.hasNext()) {
                Row row = it.next();
                if (rows++ == 0) {
                    first = System.nanoTime();
                }
                if ("OK".equals(row.getField("status"))) {
                    ok++;
                }
            }
        }
        long end = System.nanoTime();
        return new Result(
                name,
                rows,
                ok,
                (end - start) / 1e9,
                (end - first) / 1e9,
                (submitted - start) / 1e9,
                (first - start) / 1e9);
    }

    private static Result streaming(
            List<String> warm, List<String> tickets, int parallelism, int inFlight)
            throws Exception {
        Configuration conf = new Configuration();
        conf.setString("parallelism.default", Integer.toString(parallelism));
        try (EmbeddedPipeline pipeline = EmbeddedPipeline.start(conf, null, parallelism);
                ZeroLayerClient client = pipeline.client().build()) {
            send(client, warm, inFlight, "warm");
            return send(client, tickets, inFlight, "streaming job");
        }
    }

    private static Result send(
            ZeroLayerClient client, List<String> tickets, int inFlight, String name)
            throws Exception {
        AnalysisTask task = task();
        Semaphore window = new Semaphore(inFlight);
        List<CompletableFuture<AnalysisResponse>> replies = new ArrayList<>();
        long[] first = {0};
        long start = System.nanoTime();
        for (int i = 0; i < tickets.size(); i++) {
            window.acquire();
            String prompt = task.promptForText(tickets.get(i), DocumentFormat.TEXT);
            replies.add(
                    client.submit(
                                    AnalysisRequest.newBuilder()
                                            .setRequestId(name.replace(' ', '-') + "-" + i)
                                            .setTenantId(DemoTenant.ID)
                                            .setPrompt(prompt)
                                            .setSubmittedAt(Instant.now())
                                            .setAttributes(Map.of())
                                            .build())
                            .whenComplete(
                                    (r, e) -> {
                                        synchronized (first) {
                                            if (first[0] == 0) {
                                                first[0] = System.nanoTime();
                                            }
                                        }
                                        window.release();
                                    }));
        }
        int ok = 0;
        for (CompletableFuture<AnalysisResponse> r : replies) {
            if (r.join().getStatus() == ResponseStatus.OK) {
                ok++;
            }
        }
        long end = System.nanoTime();
        return new Result(
                name,
                tickets.size(),
                ok,
                (end - start) / 1e9,
                (end - first[0]) / 1e9,
                0,
                (first[0] - start) / 1e9);
    }
}
