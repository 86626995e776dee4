package io.zerolayer.cli;

import io.zerolayer.client.ZeroLayerClient;
import io.zerolayer.embedded.EmbeddedPipeline;
import io.zerolayer.jobs.ExecutorOptions;
import io.zerolayer.jobs.KafkaOptions;
import io.zerolayer.schemas.AnalysisResponse;
import io.zerolayer.schemas.ResponseStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.configuration.Configuration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code zerolayer demo}: the embedded default end to end. Starts the broker and job, sends the
 * bundled samples through Kafka (several rounds, so later rounds hit warm graphs), prints each
 * reply as it arrives and a summary, and exits 0 when every request was answered. The first round
 * sends every sample at once; later rounds send one at a time, so their round trips are a request's
 * latency on warm graphs rather than a queue's. Later rounds send the same texts, so the demo runs
 * without the embedding cache unless a setting asks for one: their round trips are those of a
 * request encoded, not of one answered from the cache.
 */
@Command(
        name = "demo",
        mixinStandardHelpOptions = true,
        description =
                "Run the pipeline on the embedded broker and local Flink, send the samples, print"
                        + " replies and a summary.")
final class DemoCommand implements Callable<Integer> {
    @Option(
            names = "--samples",
            defaultValue = "samples",
            description = "Folder of *.prompt files. Default: ${DEFAULT-VALUE}.")
    Path samples;

    @Option(
            names = "--rounds",
            defaultValue = "2",
            description =
                    "Times each sample is sent: the first round all at once, later rounds one at"
                            + " a time on warm graphs. Default: ${DEFAULT-VALUE}.")
    int rounds;

    @Option(
            names = "--parallelism",
            defaultValue = "2",
            description = "Task slots. Default: ${DEFAULT-VALUE}.")
    int parallelism;

    @Option(
            names = "--timeout",
            defaultValue = "PT120S",
            description = "Wait for each reply at most this long. Default: ${DEFAULT-VALUE}.")
    Duration timeout;

    @Option(
            names = {"--data", "--kafka-data"},
            description =
                    "Folder for the broker's data and the job's checkpoints, kept across runs."
                            + " Default: a temporary folder, deleted at the end.")
    Path kafkaData;

    @Mixin PipelineSettings settings;

    @Override
    public Integer call() throws Exception {
        long start = System.nanoTime();
        List<Path> files = PromptFiles.expand(List.of(samples));
        Configuration conf = settings.load();
        if (!conf.contains(ExecutorOptions.EMBEDDING_CACHE_SIZE)) {
            conf.set(
                    ExecutorOptions.EMBEDDING_CACHE_SIZE,
                    org.apache.flink.configuration.MemorySize.ZERO);
            System.out.println(
                    "Embedding cache off: the rounds send the same texts, and each should be"
                            + " encoded (-D zerolayer.embedding-cache.size=128mb turns it on)");
        }
        System.out.printf(
                "Starting the embedded Kafka broker and the streaming job (parallelism %d) …%n",
                parallelism);
        try (EmbeddedPipeline pipeline = EmbeddedPipeline.start(conf, kafkaData, parallelism);
                ZeroLayerClient client = pipeline.client().timeout(timeout).build()) {
            System.out.printf(
                    "Broker %s, job running after %.1f s; Prometheus at %s%n",
                    pipeline.bootstrapServers(),
                    (System.nanoTime() - start) / 1e9,
                    prometheusEndpoint(pipeline.configuration()));
            List<AnalysisResponse> replies = Collections.synchronizedList(new ArrayList<>());
            List<List<Long>> latenciesByRound = new ArrayList<>();
            int unanswered = 0;
            long sendStart = System.nanoTime();
            for (int round = 1; round <= rounds; round++) {
                boolean oneAtATime = round > 1;
                System.out.printf(
                        "%n— round %d of %d: %d requests, %s —%n",
                        round, rounds, files.size(), oneAtATime ? "one at a time" : "all at once");
                List<CompletableFuture<?>> pending = new ArrayList<>();
                List<Long> latencies = Collections.synchronizedList(new ArrayList<>());
                latenciesByRound.add(latencies);
                for (Path file : files) {
                    String label = PromptFiles.label(file);
                    long sent = System.nanoTime();
                    CompletableFuture<?> reply =
                            client.submit(PromptFiles.request(file, label + "-r" + round, "demo"))
                                    .whenComplete(
                                            (r, e) -> {
                                                long rtt = (System.nanoTime() - sent) / 1_000_000;
                                                synchronized (System.out) {
                                                    if (e != null) {
                                                        System.out.println(
                                                                "[NO REPLY] " + label + ": " + e);
                                                    } else {
                                                        replies.add(r);
                                                        latencies.add(rtt);
                                                        ResponsePrinter.print(
                                                                System.out, label, r, rtt);
                                                    }
                                                }
                                            });
                    pending.add(reply);
                    if (oneAtATime) {
                        unanswered += answered(reply) ? 0 : 1;
                    }
                }
                if (!oneAtATime) {
                    for (CompletableFuture<?> f : pending) {
                        unanswered += answered(f) ? 0 : 1;
                    }
                }
            }
            double sendSeconds = (System.nanoTime() - sendStart) / 1e9;
            printSummary(
                    pipeline.configuration().get(KafkaOptions.REPLY_DELIVERY),
                    files.size() * rounds,
                    replies,
                    latenciesByRound,
                    unanswered,
                    sendSeconds,
                    (System.nanoTime() - start) / 1e9);
            return unanswered == 0 ? 0 : 1;
        }
    }

    /** Waits for a reply; false when none came in time. */
    private static boolean answered(CompletableFuture<?> reply) {
        try {
            reply.join();
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static void printSummary(
            io.zerolayer.jobs.ReplyDelivery delivery,
            int sent,
            List<AnalysisResponse> replies,
            List<List<Long>> latenciesByRound,
            int unanswered,
            double sendSeconds,
            double wallSeconds) {
        long ok = replies.stream().filter(r -> r.getStatus() == ResponseStatus.OK).count();
        long rejected =
                replies.stream().filter(r -> r.getStatus() == ResponseStatus.REJECTED).count();
        long failed = replies.stream().filter(r -> r.getStatus() == ResponseStatus.FAILED).count();
        Set<String> graphs = new HashSet<>();
        replies.stream()
                .filter(r -> r.getGraphId() != null)
                .forEach(r -> graphs.add(r.getGraphId()));
        long compiled = replies.stream().filter(r -> r.getTimings().getCompileMicros() > 0).count();
        long kernelNanos = replies.stream().mapToLong(r -> r.getCost().getKernelNanos()).sum();
        System.out.println();
        System.out.println("Summary");
        System.out.printf(
                Locale.ROOT,
                "  requests      %d sent, %d answered (%d OK, %d REJECTED, %d FAILED), %d"
                        + " unanswered%n",
                sent,
                replies.size(),
                ok,
                rejected,
                failed,
                unanswered);
        System.out.printf(
                Locale.ROOT,
                "  graphs        %d distinct; %d compiles, %d warm hits%n",
                graphs.size(),
                compiled,
                ok - compiled);
        for (int round = 0; round < latenciesByRound.size(); round++) {
            List<Long> sorted = new ArrayList<>(latenciesByRound.get(round));
            if (sorted.isEmpty()) {
                continue;
            }
            Collections.sort(sorted);
            System.out.printf(
                    Locale.ROOT,
                    "  round trip    round %d%s: p50 %d ms, max %d ms%n",
                    round + 1,
                    round == 0
                            ? " (cold, all at once: sessions loading, graphs compiling)"
                            : " (warm, one at a time)",
                    sorted.get(sorted.size() / 2),
                    sorted.get(sorted.size() - 1));
        }
        System.out.println(
                delivery == io.zerolayer.jobs.ReplyDelivery.EXACTLY_ONCE
                        ? "                (exactly-once replies: each is visible once the"
                                + " checkpoint that commits it completes)"
                        : "                (at-least-once replies: each is sent as soon as its"
                                + " batch finishes)");
        System.out.printf(
                Locale.ROOT,
                "  kernel time   %.1f ms in total across %d graph runs%n",
                kernelNanos / 1e6,
                ok);
        System.out.printf(
                Locale.ROOT,
                "  throughput    %.1f requests/s while sending; wall time %.1f s%n",
                replies.size() / sendSeconds,
                wallSeconds);
    }

    /** The Prometheus endpoint this JVM's embedded cluster bound, or null when it has none. */
    static java.net.URI boundMetricsEndpoint() {
        return io.zerolayer.embedded.LocalPrometheusReporterFactory.boundPorts().stream()
                .sorted()
                .findFirst()
                .map(port -> java.net.URI.create("http://localhost:" + port + "/metrics"))
                .orElse(null);
    }

    static String prometheusEndpoint(Configuration conf) {
        java.net.URI bound = boundMetricsEndpoint();
        if (bound != null) {
            return bound.toString();
        }
        String port = conf.toMap().get("metrics.reporter.prom.port");
        return port == null
                ? "not configured (no flink-conf/config.yaml)"
                : "http://localhost:" + port.split("-")[0] + "/metrics (port range " + port + ")";
    }
}
