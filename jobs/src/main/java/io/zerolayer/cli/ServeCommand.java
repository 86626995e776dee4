package io.zerolayer.cli;

import io.zerolayer.embedded.DemoTenant;
import io.zerolayer.embedded.EmbeddedPipeline;
import io.zerolayer.jobs.KafkaOptions;
import io.zerolayer.jobs.PipelineOptions;
import io.zerolayer.jobs.TenancyOptions;
import java.net.URI;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.apache.flink.configuration.Configuration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code zerolayer serve}: the embedded broker and job, up until Ctrl-C. */
@Command(
        name = "serve",
        mixinStandardHelpOptions = true,
        description =
                "Start the embedded Kafka broker and the streaming job and keep them up until"
                        + " Ctrl-C.")
final class ServeCommand implements Callable<Integer> {
    @Option(
            names = {"--data", "--kafka-data"},
            description =
                    "Folder for the broker's data and the job's checkpoints, kept across runs: a"
                        + " restart keeps the broker's port and resumes the job from its last"
                        + " checkpoint, so requests in flight are answered exactly once. Default: a"
                        + " temporary folder, removed on exit.")
    Path dataDir;

    @Option(
            names = "--parallelism",
            defaultValue = "2",
            description = "Task slots. Default: ${DEFAULT-VALUE}.")
    int parallelism;

    @Mixin PipelineSettings settings;

    @Override
    public Integer call() throws Exception {
        Configuration conf = settings.load();
        EmbeddedPipeline pipeline = EmbeddedPipeline.start(conf, dataDir, parallelism);
        Configuration c = pipeline.configuration();
        URI metrics = DemoCommand.boundMetricsEndpoint();
        Path endpointFile =
                metrics == null
                        ? null
                        : new ServeEndpoint(
                                        ProcessHandle.current().pid(),
                                        metrics,
                                        parallelism,
                                        pipeline.bootstrapServers())
                                .write(ServeEndpoint.folder());
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(
                        new Thread(
                                () -> {
                                    System.out.println("Stopping …");
                                    if (endpointFile != null) {
                                        endpointFile.toFile().delete();
                                    }
                                    pipeline.close();
                                    stopped.countDown();
                                }));
        System.out.println("ZeroLayer is serving.");
        if (dataDir == null) {
            System.out.println(
                    "  data              : temporary ("
                            + pipeline.dataDir()
                            + "): topics, offsets and job state are removed on exit; use --data"
                            + " DIR to keep them across restarts");
        } else {
            System.out.println(
                    "  data              : "
                            + dataDir.toAbsolutePath()
                            + " (kept; "
                            + (pipeline.resumedFrom() == null
                                    ? "no checkpoint yet, the job starts afresh"
                                    : "resumed from " + pipeline.resumedFrom().getFileName())
                            + ")");
        }
        System.out.println("  bootstrap servers : " + pipeline.bootstrapServers());
        System.out.println("  requests          : " + c.get(KafkaOptions.REQUESTS_TOPIC));
        System.out.println(
                PipelineOptions.verified(c)
                        ? "  replies           : "
                                + c.get(KafkaOptions.TENANT_REPLIES_PREFIX)
                                + "<tenant> (or a kafka_replyTopic under it)"
                        : "  responses         : "
                                + c.get(KafkaOptions.RESPONSES_TOPIC)
                                + " (or the kafka_replyTopic header)");
        System.out.println("  kernel costs      : " + c.get(KafkaOptions.COSTS_TOPIC));
        System.out.println("  cost summary      : " + c.get(KafkaOptions.COST_SUMMARY_TOPIC));
        System.out.println("  graph descriptors : " + c.get(KafkaOptions.GRAPHS_TOPIC));
        System.out.println("  dead letters      : " + c.get(KafkaOptions.DEAD_LETTERS_TOPIC));
        System.out.println(
                "  Prometheus        : "
                        + (metrics == null ? DemoCommand.prometheusEndpoint(c) : metrics)
                        + " (zerolayer status reads it)");
        String tenants = c.getOptional(TenancyOptions.TENANTS_FILE).orElse(null);
        System.out.println(
                "  tenants           : "
                        + (tenants == null
                                ? "not verified (zerolayer.auth.mode: none)"
                                : tenants
                                        + (pipeline.credentials().isPresent()
                                                ? " (tenant " + DemoTenant.ID + ", owner-only)"
                                                : "")));
        pipeline.kafkaSettingsFile(DemoTenant.ID)
                .ifPresent(
                        f ->
                                System.out.println(
                                        "  Kafka             : SASL/SCRAM and ACLs; each"
                                                + " principal's client settings in "
                                                + f.getParent()
                                                + " (owner-only)"));
        System.out.println(
                "Try: ./zerolayer submit --bootstrap-servers "
                        + pipeline.bootstrapServers()
                        + pipeline.kafkaSettingsFile(DemoTenant.ID)
                                .map(f -> " --command-config " + f)
                                .orElse("")
                        + (tenants == null ? "" : " --tenants-file " + tenants)
                        + " samples/");
        System.out.println("Ctrl-C to stop.");
        stopped.await();
        return 0;
    }
}
