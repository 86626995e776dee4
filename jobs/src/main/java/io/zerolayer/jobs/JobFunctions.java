package io.zerolayer.jobs;

import io.zerolayer.operators.contracts.SafeModePolicy;
import io.zerolayer.operators.contracts.TaskContracts;
import io.zerolayer.operators.costs.PriceSheet;
import io.zerolayer.operators.door.RequestAdmission;
import io.zerolayer.operators.door.RequestAuthenticator;
import io.zerolayer.operators.execution.EmbeddingCache;
import io.zerolayer.operators.execution.WarmGraphCache;
import io.zerolayer.operators.flink.DecodeAndClassifyFunction;
import io.zerolayer.operators.flink.GraphExecutorFunction;
import io.zerolayer.operators.flink.HotGraphSharder;
import io.zerolayer.operators.kafka.KnownTopics;
import io.zerolayer.operators.scheduling.ExecutorSetup;
import io.zerolayer.operators.tenants.AuthMode;
import io.zerolayer.operators.warmup.GraphDescriptors;
import io.zerolayer.operators.warmup.PrecompileList;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.flink.configuration.Configuration;

/**
 * The job's functions, each built from the job's configuration: the classifier, the executor and
 * what they are set up with (contracts, prices, precompiled structures). Built here, when the job
 * is defined, so a broken file fails the submission rather than every task's open().
 */
public final class JobFunctions {
    /**
     * How long a reply topic found missing is taken as missing before the broker is asked again.
     */
    static final java.time.Duration MISSING_REPLY_TOPIC_REFRESH = java.time.Duration.ofSeconds(5);

    private JobFunctions() {}

    /**
     * The decode, type-check and graph-id operator, configured by {@code conf}. The contracts are
     * parsed here so a broken tasks.yaml fails the submission, not the running job; the operator
     * gets their text and parses it again in open().
     */
    static DecodeAndClassifyFunction classifier(Configuration conf, int executorParallelism) {
        DecodeAndClassifyFunction classifier =
                unauthenticatedClassifier(conf, executorParallelism)
                        .withSplitting(
                                conf.get(ExecutorOptions.SPLIT_MIN_TOKENS),
                                PipelineOptions.execution(conf));
        String tenants = conf.get(TenancyOptions.TENANTS_FILE);
        if (tenants != null) {
            classifier.withTenants(tenants, null); // their quotas apply in either auth mode
        }
        if (conf.get(TenancyOptions.AUTH_MODE) == AuthMode.NONE) {
            return classifier;
        }
        RequestAuthenticator authenticator =
                new RequestAuthenticator(conf.get(TenancyOptions.AUTH_MAX_CLOCK_SKEW));
        return classifier.withAuthentication(authenticator, authenticator.replayWindow());
    }

    /** The classifier without authentication, which {@link #classifier} adds. */
    static DecodeAndClassifyFunction unauthenticatedClassifier(
            Configuration conf, int executorParallelism) {
        return new DecodeAndClassifyFunction(
                        contracts(conf).source(),
                        conf.getOptional(TenancyOptions.CONTRACTS_FILE).orElse(null),
                        new RequestAdmission(
                                PipelineOptions.replyTopics(conf),
                                // no Kafka (analyze's batch runs): reply topics are not asked
                                conf.getOptional(KafkaOptions.BOOTSTRAP_SERVERS).isPresent()
                                        ? new KnownTopics(
                                                KafkaOptions.connection(conf),
                                                MISSING_REPLY_TOPIC_REFRESH.toMillis())
                                        : null),
                        safeMode(conf),
                        new HotGraphSharder(
                                executorParallelism,
                                StreamingJob.EXECUTOR_MAX_PARALLELISM,
                                conf.get(ExecutorOptions.REQUESTS_PER_SHARD),
                                conf.get(ExecutorOptions.LOAD_PER_SHARD)))
                .withHardware(
                        conf.get(HardwareOptions.HARDWARE_PROFILE),
                        readOptional(conf, HardwareOptions.HARDWARE_PROFILES_FILE),
                        conf.get(HardwareOptions.INTRA_OP_THREADS))
                .withTiers(StreamingJob.tiers(conf))
                .withBrokerWatch(
                        conf.getOptional(KafkaOptions.BOOTSTRAP_SERVERS).isPresent()
                                ? KafkaOptions.connection(conf)
                                : null);
    }

    /**
     * The warm graph executor, configured by {@code conf}.
     *
     * @param graphsTopic where to find graphs compiled before a restart; null for none
     */
    static GraphExecutorFunction executor(Configuration conf, GraphDescriptors graphsTopic) {
        GraphExecutorFunction executor =
                new GraphExecutorFunction(setup(conf, graphsTopic))
                        .withEmbeddingCache(embeddingCache(conf))
                        .withPassTokens(conf.get(ExecutorOptions.BATCH_MAX_TOKENS))
                        .withTiers(StreamingJob.tiers(conf));
        String tenants = conf.get(TenancyOptions.TENANTS_FILE);
        return tenants == null ? executor : executor.withTenants(tenants, null);
    }

    /** How executor slots use their TaskManager's embedding cache, from {@code conf}. */
    public static EmbeddingCache.Settings embeddingCache(Configuration conf) {
        return new EmbeddingCache.Settings(
                conf.get(ExecutorOptions.EMBEDDING_CACHE_SIZE).getBytes(),
                conf.get(ExecutorOptions.EMBEDDING_CACHE_SCOPE),
                conf.get(ExecutorOptions.EMBEDDING_CACHE_COMPLIANCE_LEVEL_3));
    }

    /**
     * What an in-process analyzer (Flink SQL's {@code ML_PREDICT}) is set up with, from {@code
     * conf}: as an executor slot, without a graphs topic.
     */
    public static ExecutorSetup inProcessSetup(Configuration conf) {
        return setup(conf, null);
    }

    /** Whether prompts of abnormal structure are served by the SAFE graph, per tenant. */
    public static SafeModePolicy safeMode(Configuration conf) {
        return SafeModePolicy.of(
                conf.get(TenancyOptions.SAFE_MODE_POLICY),
                conf.get(TenancyOptions.TENANT_SAFE_MODE_POLICIES));
    }

    /** What each executor slot is set up with, from {@code conf}. */
    static ExecutorSetup setup(Configuration conf, GraphDescriptors graphsTopic) {
        return new ExecutorSetup(
                contracts(conf).source(),
                conf.getOptional(TenancyOptions.CONTRACTS_FILE).orElse(null),
                conf.get(HardwareOptions.HARDWARE_PROFILE),
                readOptional(conf, HardwareOptions.HARDWARE_PROFILES_FILE),
                conf.get(HardwareOptions.INTRA_OP_THREADS),
                new WarmGraphCache.Bounds(
                        conf.get(ExecutorOptions.GRAPH_CACHE_CAPACITY),
                        conf.get(ExecutorOptions.GRAPH_CACHE_SIZE).getBytes(),
                        conf.get(ExecutorOptions.GRAPH_CACHE_TTL).toMillis()),
                precompile(conf),
                graphsTopic,
                PipelineOptions.execution(conf),
                prices(conf),
                conf.get(ExecutorOptions.INFERENCE_THREAD),
                conf.get(ExecutorOptions.BATCH_SLICE).toMillis(),
                conf.get(FaultInjection.CRASH_AFTER_REQUESTS));
    }

    /** The text of the file an option names, or null when it is not set. */
    static String readOptional(
            Configuration conf, org.apache.flink.configuration.ConfigOption<String> option) {
        return conf.getOptional(option)
                .map(
                        file -> {
                            try {
                                return Files.readString(Path.of(file));
                            } catch (java.io.IOException e) {
                                throw new IllegalArgumentException(
                                        "Cannot read " + option.key() + " " + file, e);
                            }
                        })
                .orElse(null);
    }

    /**
     * The structures to compile when each executor opens: the configured file's, none for {@code
     * none}, else the list built into the jar.
     */
    static PrecompileList precompile(Configuration conf) {
        String file = conf.getOptional(ExecutorOptions.PRECOMPILE_FILE).orElse(null);
        if (file == null) {
            return PrecompileList.builtIn();
        }
        return file.strip().equals(ExecutorOptions.NO_PRECOMPILE)
                ? PrecompileList.NONE
                : PrecompileList.parse(readOptional(conf, ExecutorOptions.PRECOMPILE_FILE));
    }

    /** The price sheet cost records are billed at: the configured one or the built-in. */
    public static PriceSheet prices(Configuration conf) {
        return conf.getOptional(BillingOptions.PRICES_FILE)
                .map(file -> PriceSheet.load(Path.of(file)))
                .orElseGet(PriceSheet::builtIn);
    }

    /** The task contracts the job checks requests against. */
    public static TaskContracts contracts(Configuration conf) {
        return conf.getOptional(TenancyOptions.CONTRACTS_FILE)
                .map(file -> TaskContracts.load(Path.of(file)))
                .orElseGet(TaskContracts::builtIn);
    }
}
