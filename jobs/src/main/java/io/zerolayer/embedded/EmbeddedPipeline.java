package io.zerolayer.embedded;

import io.zerolayer.jobs.PipelineOptions;
import io.zerolayer.jobs.StreamingJob;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ZeroLayer's embedded default: a real KRaft broker in this JVM, the topics, and the streaming job
 * on a local Flink MiniCluster, running until closed. The demo, {@code serve} and the ITCases all
 * start exactly this.
 */
public final class EmbeddedPipeline implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedPipeline.class);

    private final EmbeddedKafkaBroker broker;
    private final JobClient job;
    private final Configuration conf;

    private EmbeddedPipeline(EmbeddedKafkaBroker broker, JobClient job, Configuration conf) {
        this.broker = broker;
        this.job = job;
        this.conf = conf;
    }

    /**
     * @param flinkConf Flink and {@link PipelineOptions} settings; the bootstrap servers are set
     *     here
     * @param kafkaDataDir broker data folder, or null for a temporary one
     * @param parallelism task slots of the local cluster and partitions of the requests topic
     */
    public static EmbeddedPipeline start(
            Configuration flinkConf, Path kafkaDataDir, int parallelism) throws Exception {
        EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(kafkaDataDir);
        try {
            Configuration conf = new Configuration(flinkConf);
            conf.set(PipelineOptions.BOOTSTRAP_SERVERS, broker.bootstrapServers());
            Map<String, Integer> topics = new LinkedHashMap<>();
            topics.put(conf.get(PipelineOptions.REQUESTS_TOPIC), parallelism);
            topics.put(conf.get(PipelineOptions.RESPONSES_TOPIC), 1);
            topics.put(conf.get(PipelineOptions.COSTS_TOPIC), parallelism);
            topics.put(conf.get(PipelineOptions.COST_SUMMARY_TOPIC), 1);
            topics.put(conf.get(PipelineOptions.DEAD_LETTERS_TOPIC), 1);
            topics.put(conf.get(PipelineOptions.CONTROL_TOPIC), 1);
            broker.createTopics(topics);
            broker.createCompactedTopic(conf.get(PipelineOptions.GRAPHS_TOPIC), 1);

            StreamExecutionEnvironment env =
                    StreamExecutionEnvironment.createLocalEnvironment(parallelism, conf);
            StreamingJob.define(env, conf);
            JobClient job = env.executeAsync(StreamingJob.JOB_NAME);
            EmbeddedPipeline pipeline = new EmbeddedPipeline(broker, job, conf);
            pipeline.awaitRunning(Duration.ofSeconds(60));
            return pipeline;
        } catch (Exception | Error e) {
            broker.close();
            throw e;
        }
    }

    public String bootstrapServers() {
        return broker.bootstrapServers();
    }

    public Configuration configuration() {
        return conf;
    }

    public JobClient job() {
        return job;
    }

    private void awaitRunning(Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            JobStatus status = job.getJobStatus().get();
            if (status == JobStatus.RUNNING) {
                return;
            }
            if (status.isGloballyTerminalState()) {
                job.getJobExecutionResult().get(); // rethrows the job's failure
                throw new IllegalStateException("Streaming job ended before it ran: " + status);
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("Streaming job not running after " + timeout);
    }

    @Override
    public void close() {
        try {
            job.cancel().get();
        } catch (Exception e) {
            LOG.warn("Cancelling the streaming job failed", e);
        }
        broker.close();
    }
}
