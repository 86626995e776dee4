package io.zerolayer.embedded;

import io.zerolayer.client.ZeroLayerClient;
import io.zerolayer.jobs.JobTopic;
import io.zerolayer.jobs.KafkaOptions;
import io.zerolayer.jobs.PipelineOptions;
import io.zerolayer.jobs.StreamingJob;
import io.zerolayer.schemas.auth.TenantCredentials;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
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
    private final Path resumedFrom;
    private final TenantCredentials credentials;

    private EmbeddedPipeline(
            EmbeddedKafkaBroker broker,
            JobClient job,
            Configuration conf,
            Path resumedFrom,
            TenantCredentials credentials) {
        this.broker = broker;
        this.job = job;
        this.conf = conf;
        this.resumedFrom = resumedFrom;
        this.credentials = credentials;
    }

    /**
     * @param flinkConf Flink and {@link PipelineOptions} settings; the bootstrap servers are set
     *     here
     * @param dataDir folder for the broker's data and the job's checkpoints, kept across restarts
     *     (the job resumes from its latest checkpoint); null for a temporary broker folder and
     *     checkpoints in memory, all gone on exit
     * @param parallelism task slots of the local cluster and partitions of the requests topic
     */
    public static EmbeddedPipeline start(Configuration flinkConf, Path dataDir, int parallelism)
            throws Exception {
        EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(dataDir);
        try {
            Configuration conf = new Configuration(flinkConf);
            conf.set(KafkaOptions.BOOTSTRAP_SERVERS, broker.bootstrapServers());
            onLoopback(conf);
            Path resumedFrom =
                    dataDir == null
                            ? null
                            : new RetainedCheckpoints(dataDir).configure(conf).orElse(null);
            if (resumedFrom != null) {
                LOG.info("Resuming the streaming job from checkpoint {}", resumedFrom);
            }
            broker.createTopics(
                    JobTopic.of(conf, parallelism).stream().map(JobTopic::newTopic).toList());
            TenantCredentials credentials = DemoTenant.prepare(conf, broker.dataDir()).orElse(null);

            StreamExecutionEnvironment env =
                    StreamExecutionEnvironment.createLocalEnvironment(parallelism, conf);
            StreamingJob.define(env, conf);
            JobClient job = env.executeAsync(StreamingJob.JOB_NAME);
            EmbeddedPipeline pipeline =
                    new EmbeddedPipeline(broker, job, conf, resumedFrom, credentials);
            pipeline.awaitRunning(Duration.ofSeconds(60));
            return pipeline;
        } catch (Exception | Error e) {
            broker.close();
            throw e;
        }
    }

    /**
     * Everything of the embedded cluster listens on loopback only (Flink's REST endpoint, blob
     * server, RPC and data ports; the broker already does), as a single-machine service should,
     * unless the configuration names other addresses.
     */
    static void onLoopback(Configuration conf) {
        for (var option :
                List.of(
                        RestOptions.BIND_ADDRESS,
                        RestOptions.ADDRESS,
                        JobManagerOptions.BIND_HOST,
                        JobManagerOptions.ADDRESS,
                        TaskManagerOptions.BIND_HOST,
                        TaskManagerOptions.HOST)) {
            if (!conf.contains(option)) {
                conf.set(option, LOOPBACK);
            }
        }
        // Flink's own Prometheus reporter listens on every interface: use the one that binds
        for (String key : conf.keySet()) {
            if (key.startsWith("metrics.reporter.")
                    && key.endsWith(".factory.class")
                    && PROMETHEUS_FACTORY.equals(conf.getString(key, null))) {
                String prefix = key.substring(0, key.length() - "factory.class".length());
                conf.setString(key, LocalPrometheusReporterFactory.class.getName());
                if (!conf.containsKey(prefix + LocalPrometheusReporterFactory.HOST)) {
                    conf.setString(prefix + LocalPrometheusReporterFactory.HOST, LOOPBACK);
                }
            }
        }
    }

    private static final String PROMETHEUS_FACTORY =
            "org.apache.flink.metrics.prometheus.PrometheusReporterFactory";

    static final String LOOPBACK = "localhost";

    public String bootstrapServers() {
        return broker.bootstrapServers();
    }

    public Configuration configuration() {
        return conf;
    }

    /**
     * What to sign the {@value DemoTenant#ID} tenant's requests with; empty when requests are not
     * verified or the configured tenants file has no such tenant.
     */
    public Optional<TenantCredentials> credentials() {
        return Optional.ofNullable(credentials);
    }

    /**
     * A client of this pipeline's requests topic, signing as the {@value DemoTenant#ID} tenant when
     * requests are verified.
     */
    public ZeroLayerClient.Builder client() {
        ZeroLayerClient.Builder builder =
                ZeroLayerClient.builder()
                        .bootstrapServers(bootstrapServers())
                        .requestsTopic(conf.get(KafkaOptions.REQUESTS_TOPIC));
        credentials().ifPresent(builder::credentials);
        return builder;
    }

    /** The checkpoint the job resumed from, or null when it started afresh. */
    public Path resumedFrom() {
        return resumedFrom;
    }

    /** Where the broker keeps its data (a temporary folder when none was given). */
    public Path dataDir() {
        return broker.dataDir();
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
