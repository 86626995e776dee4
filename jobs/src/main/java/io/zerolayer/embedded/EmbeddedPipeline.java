package io.zerolayer.embedded;

import io.zerolayer.client.ZeroLayerClient;
import io.zerolayer.jobs.JobTopic;
import io.zerolayer.jobs.KafkaOptions;
import io.zerolayer.jobs.PipelineOptions;
import io.zerolayer.jobs.StreamingJob;
import io.zerolayer.jobs.TenancyOptions;
import io.zerolayer.operators.kafka.ClientSettingsFile;
import io.zerolayer.operators.kafka.KafkaConnection;
import io.zerolayer.operators.tenants.AuthMode;
import io.zerolayer.operators.tenants.KafkaTenancy;
import io.zerolayer.operators.tenants.TenantRegistry;
import io.zerolayer.operators.tenants.TenantsSync;
import io.zerolayer.schemas.auth.TenantCredentials;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.admin.Admin;
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
        // a job that verifies its tenants gets a broker that does too
        return start(
                flinkConf,
                dataDir,
                parallelism,
                flinkConf.get(TenancyOptions.AUTH_MODE) == AuthMode.NONE
                        ? EmbeddedKafkaBroker.Security.PLAINTEXT
                        : EmbeddedKafkaBroker.Security.SCRAM);
    }

    /**
     * As {@link #start(Configuration, Path, int)}, on a broker of the given security. With {@link
     * EmbeddedKafkaBroker.Security#SCRAM}, the tenants' and the job's principals, ACLs and reply
     * topics are made by {@link TenantsSync} from the tenant registry, their client settings kept
     * in {@code kafka-credentials/} of the broker's folder, and the job signs in as its own
     * principal.
     */
    public static EmbeddedPipeline start(
            Configuration flinkConf,
            Path dataDir,
            int parallelism,
            EmbeddedKafkaBroker.Security security)
            throws Exception {
        EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(dataDir, security);
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
            if (security == EmbeddedKafkaBroker.Security.SCRAM) {
                syncTenants(broker, conf);
                kafkaSettings(broker, KafkaTenancy.JOB)
                        .forEach(
                                (k, v) ->
                                        conf.setString(
                                                KafkaOptions.CLIENT_PROPERTIES_PREFIX + k, v));
            }

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
        credentials()
                .ifPresent(c -> builder.credentials(c).kafkaSettings(kafkaSettings(c.tenantId())));
        return builder;
    }

    /** In the broker's folder: the client settings of each principal, owner-only. */
    public static final String CREDENTIALS_DIR = "kafka-credentials";

    /**
     * Makes the broker's principals, ACLs and tenants' reply topics what the registry in force
     * says; a principal whose client settings are missing from {@link #CREDENTIALS_DIR} gets a new
     * password.
     */
    public static void syncTenants(EmbeddedKafkaBroker broker, Configuration conf)
            throws Exception {
        TenantRegistry registry =
                TenantRegistry.load(Path.of(conf.get(TenancyOptions.TENANTS_FILE)));
        Set<String> tenants = registry.tenantIds();
        Path dir = broker.dataDir().resolve(CREDENTIALS_DIR);
        Set<String> lost = new LinkedHashSet<>();
        for (String principal : KafkaTenancy.principals(tenants)) {
            if (!Files.exists(credentialsFile(broker.dataDir(), principal))) {
                lost.add(principal);
            }
        }
        try (Admin admin = Admin.create(broker.adminConnection().properties())) {
            TenantsSync.Result result =
                    new TenantsSync(admin, KafkaOptions.tenancyTopics(conf), 1)
                            .sync(registry, lost, false);
            for (var user : result.passwords().entrySet()) {
                ClientSettingsFile.write(dir, user.getKey(), user.getValue(), "SASL_PLAINTEXT");
            }
            if (!result.changes().isEmpty()) {
                LOG.info(
                        "Kafka tenancy: {} change(s) for {} tenant(s), client settings in {}",
                        result.changes().size(),
                        tenants.size(),
                        dir);
            }
        }
    }

    /**
     * Syncs the broker with the tenants file as it is now (a tenant added, a quota changed), as an
     * operator runs {@code zerolayer tenants sync} before {@code reload-tenants}; nothing on a
     * plaintext broker.
     */
    public void syncTenants() throws Exception {
        if (broker.security() == EmbeddedKafkaBroker.Security.SCRAM) {
            syncTenants(broker, conf);
        }
    }

    /**
     * Where the broker of data folder {@code brokerData} keeps {@code principal}'s client settings
     * (written by its sync).
     */
    public static Path credentialsFile(Path brokerData, String principal) {
        return brokerData.resolve(CREDENTIALS_DIR).resolve(principal + ".properties");
    }

    /** The client settings {@code principal} signs in to this broker with. */
    static Map<String, String> kafkaSettings(EmbeddedKafkaBroker broker, String principal) {
        return ClientSettingsFile.read(credentialsFile(broker.dataDir(), principal));
    }

    /**
     * The Kafka client settings of {@code principal} ({@value DemoTenant#ID}, a tenant of the
     * registry, or {@link KafkaTenancy#BILLING}); none on a plaintext broker.
     */
    public Map<String, String> kafkaSettings(String principal) {
        return broker.security() == EmbeddedKafkaBroker.Security.SCRAM
                ? kafkaSettings(broker, principal)
                : Map.of();
    }

    /**
     * The file of {@code principal}'s Kafka client settings, for {@code --command-config}; empty on
     * a plaintext broker.
     */
    public Optional<Path> kafkaSettingsFile(String principal) {
        return broker.security() == EmbeddedKafkaBroker.Security.SCRAM
                ? Optional.of(credentialsFile(broker.dataDir(), principal))
                : Optional.empty();
    }

    /** The broker's super user, for set-up and checks. */
    public KafkaConnection adminConnection() {
        return broker.adminConnection();
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
