package io.zerolayer.cli;

import io.zerolayer.jobs.PipelineOptions;
import io.zerolayer.jobs.StreamingJob;
import java.util.concurrent.Callable;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code zerolayer run}: the streaming job against an existing Kafka cluster. Under {@code flink
 * run} it is submitted to that cluster; run plainly, it executes on a local MiniCluster.
 */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = "Run the streaming job against an existing Kafka cluster (also the entry point under `flink run`).")
final class RunCommand implements Callable<Integer> {
    @Option(names = "--bootstrap-servers", description = "Kafka bootstrap servers (or zerolayer.kafka.bootstrap-servers in config.yaml).")
    String bootstrapServers;

    @Mixin
    PipelineSettings settings;

    @Override
    public Integer call() throws Exception {
        Configuration conf = settings.load();
        if (bootstrapServers != null) {
            conf.set(PipelineOptions.BOOTSTRAP_SERVERS, bootstrapServers);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        StreamingJob.define(env, conf);
        env.execute(StreamingJob.JOB_NAME);
        return 0;
    }
}
