package io.zerolayer.cli;

import io.zerolayer.jobs.JobTopic;
import io.zerolayer.jobs.KafkaOptions;
import io.zerolayer.jobs.StreamingJob;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
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
            conf.set(KafkaOptions.BOOTSTRAP_SERVERS, bootstrapServers);
        }
        requireTopics(conf);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        StreamingJob.define(env, conf);
        env.execute(StreamingJob.JOB_NAME);
        return 0;
    }

    /**
     * Fails before submitting, naming every missing topic and the command that creates it, instead
     * of a job that fails over until someone creates them.
     */
    private static void requireTopics(Configuration conf) throws Exception {
        io.zerolayer.operators.kafka.KafkaConnection kafka = KafkaOptions.connection(conf);
        try (Admin admin = Admin.create(kafka.properties())) {
            JobTopic.requireAll(
                    JobTopic.of(conf, conf.get(CoreOptions.DEFAULT_PARALLELISM)),
                    admin.listTopics().names().get(30, TimeUnit.SECONDS),
                    kafka.bootstrapServers());
        }
    }
}
