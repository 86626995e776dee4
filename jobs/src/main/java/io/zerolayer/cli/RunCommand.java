package io.zerolayer.cli;

import io.zerolayer.jobs.PipelineOptions;
import io.zerolayer.jobs.StreamingJob;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.admin.Admin;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code zerolayer run}: the streaming job against an existing Kafka cluster. Under {@code flink
 * run} it is submitted to that cluster; run plainly, it executes on a local MiniCluster.
 */
@Command(
        name = "run",
        mixinStandardHelpOptions = true,
        description =
                "Run the streaming job against an existing Kafka cluster (also the entry point"
                        + " under `flink run`).")
final class RunCommand implements Callable<Integer> {
    @Option(
            names = "--bootstrap-servers",
            description =
                    "Kafka bootstrap servers (or zerolayer.kafka.bootstrap-servers in"
                            + " config.yaml).")
    String bootstrapServers;

    @Mixin PipelineSettings settings;

    @Override
    public Integer call() throws Exception {
        Configuration conf = settings.load();
        if (bootstrapServers != null) {
            conf.set(PipelineOptions.BOOTSTRAP_SERVERS, bootstrapServers);
        }
        requireRequestsTopic(conf);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        StreamingJob.define(env, conf);
        env.execute(StreamingJob.JOB_NAME);
        return 0;
    }

    /**
     * Fails before submitting, instead of a job that fails over until someone creates the topics.
     */
    private static void requireRequestsTopic(Configuration conf) throws Exception {
        String bootstrap =
                conf.getOptional(PipelineOptions.BOOTSTRAP_SERVERS)
                        .orElseThrow(
                                () ->
                                        new IllegalArgumentException(
                                                "Set --bootstrap-servers or "
                                                        + PipelineOptions.BOOTSTRAP_SERVERS.key()
                                                        + " in config.yaml"));
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            var existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            for (var option :
                    java.util.List.of(
                            PipelineOptions.REQUESTS_TOPIC, PipelineOptions.CONTROL_TOPIC)) {
                String topic = conf.get(option);
                if (!existing.contains(topic)) {
                    throw new IllegalArgumentException(
                            "Topic '"
                                    + topic
                                    + "' does not exist on "
                                    + bootstrap
                                    + "; create it (requests: one partition per task slot; control:"
                                    + " one) or set "
                                    + option.key());
                }
            }
        }
    }
}
