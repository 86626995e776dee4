package io.zerolayer.jobs;

import io.zerolayer.gpu.hardware.HardwareFingerprint;
import io.zerolayer.gpu.hardware.HardwareProfiles;
import io.zerolayer.operators.audit.CommittedChainHeads;
import io.zerolayer.operators.contracts.SafeModePolicy;
import io.zerolayer.operators.contracts.TaskContracts;
import io.zerolayer.operators.costs.PriceSheet;
import io.zerolayer.operators.door.RequestAdmission;
import io.zerolayer.operators.door.RequestAuthenticator;
import io.zerolayer.operators.execution.EmbeddingCache;
import io.zerolayer.operators.execution.WarmGraphCache;
import io.zerolayer.operators.flink.AuditChainFunction;
import io.zerolayer.operators.flink.ControlCommand;
import io.zerolayer.operators.flink.ControlCommandDeserializationSchema;
import io.zerolayer.operators.flink.CostSummaries;
import io.zerolayer.operators.flink.DeadLetterSerializationSchema;
import io.zerolayer.operators.flink.DecodeAndClassifyFunction;
import io.zerolayer.operators.flink.EncodeReplies;
import io.zerolayer.operators.flink.GraphExecutorFunction;
import io.zerolayer.operators.flink.GraphExecutorOperator;
import io.zerolayer.operators.flink.HotGraphSharder;
import io.zerolayer.operators.flink.KeyedAvroSerializationSchema;
import io.zerolayer.operators.flink.RawRecordDeserializationSchema;
import io.zerolayer.operators.flink.ReplySerializationSchema;
import io.zerolayer.operators.flink.RequestKeys;
import io.zerolayer.operators.flink.SplitRequestJoin;
import io.zerolayer.operators.kafka.KnownTopics;
import io.zerolayer.operators.kafka.RawRecord;
import io.zerolayer.operators.kafka.ReplyRecord;
import io.zerolayer.operators.quality.TierSources;
import io.zerolayer.operators.replies.Reply;
import io.zerolayer.operators.routing.RoutedRequest;
import io.zerolayer.operators.scheduling.ExecutorSetup;
import io.zerolayer.operators.tenants.AuthMode;
import io.zerolayer.operators.tenants.TenantRegistry;
import io.zerolayer.operators.warmup.GraphDescriptors;
import io.zerolayer.operators.warmup.PrecompileList;
import io.zerolayer.schemas.AuditEntry;
import io.zerolayer.schemas.CostSummary;
import io.zerolayer.schemas.ExecutionGraph;
import io.zerolayer.schemas.KernelCostRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.lineage.KafkaDatasetFacetProvider;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.sink.TransactionNamingStrategy;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.streaming.api.datastream.BroadcastStream;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;

/**
 * The streaming job: Kafka requests → decode and classify → keyBy(graph id) → warm graph executor →
 * replies, kernel cost records, graph descriptors and the level-3 tenants' audit chains. Replies go
 * out at once or with the checkpoint ({@link ReplyDelivery}); everything else through transactional
 * Kafka sinks. Undecodable records go to the dead-letter topic; contract failures are replied to as
 * REJECTED.
 */
public final class StreamingJob {
    private static final org.slf4j.Logger LOG =
            org.slf4j.LoggerFactory.getLogger(StreamingJob.class);

    public static final String JOB_NAME = "zerolayer-streaming";

    /**
     * Key groups of the executor. Fixed, because the shard salts are chosen for it: changing it (or
     * the executor's parallelism) only re-spreads shards, since the executor keeps no state.
     */
    static final int EXECUTOR_MAX_PARALLELISM = 128;

    /** How long a transactional sink's producer waits to fill a request (see {@link #sink}). */
    static final java.time.Duration TRANSACTIONAL_LINGER = java.time.Duration.ofMillis(100);

    /** The most a transactional sink's producer puts in one partition's batch. */
    static final int TRANSACTIONAL_BATCH_BYTES = 512 * 1024;

    /**
     * How long a reply topic found missing is taken as missing before the broker is asked again.
     */
    static final java.time.Duration MISSING_REPLY_TOPIC_REFRESH = java.time.Duration.ofSeconds(5);

    /**
     * The longest reading the audit topic may take, where a chain's head is not in state; the task
     * fails and retries rather than fork a chain.
     */
    static final java.time.Duration AUDIT_TOPIC_READ_TIMEOUT = java.time.Duration.ofMinutes(5);

    private StreamingJob() {}

    /** Adds the job's operators to {@code env}, configured by {@link PipelineOptions}. */
    public static void define(StreamExecutionEnvironment env, Configuration conf) {
        String bootstrap =
                conf.getOptional(PipelineOptions.BOOTSTRAP_SERVERS)
                        .orElseThrow(
                                () ->
                                        new IllegalArgumentException(
                                                "Set "
                                                        + PipelineOptions.BOOTSTRAP_SERVERS.key()
                                                        + " (or --bootstrap-servers) to the Kafka"
                                                        + " cluster to read from"));
        env.enableCheckpointing(
                conf.get(PipelineOptions.CHECKPOINT_INTERVAL).toMillis(),
                CheckpointingMode.EXACTLY_ONCE);
        checkHardwareProfile(conf);
        installTiers(conf);
        checkAuthentication(conf);
        int executorParallelism = env.getParallelism();

        KafkaSource<RawRecord> source =
                KafkaSource.<RawRecord>builder()
                        .setBootstrapServers(bootstrap)
                        .setTopics(conf.get(PipelineOptions.REQUESTS_TOPIC))
                        .setGroupId(conf.get(PipelineOptions.GROUP_ID))
                        .setStartingOffsets(
                                OffsetsInitializer.committedOffsets(OffsetResetStrategy.EARLIEST))
                        .setDeserializer(new RawRecordDeserializationSchema())
                        .setProperty("isolation.level", "read_committed")
                        .build();
        // control commands reach every classifier and executor slot; the topic is read from its
        // end: reloaded contracts survive restarts in broadcast state, not by replaying commands
        KafkaSource<ControlCommand> controlSource =
                KafkaSource.<ControlCommand>builder()
                        .setBootstrapServers(bootstrap)
                        .setTopics(conf.get(PipelineOptions.CONTROL_TOPIC))
                        .setGroupId(conf.get(PipelineOptions.GROUP_ID) + "-control")
                        .setStartingOffsets(
                                OffsetsInitializer.committedOffsets(OffsetResetStrategy.LATEST))
                        .setDeserializer(new ControlCommandDeserializationSchema())
                        .setProperty("isolation.level", "read_committed")
                        .build();
        DataStream<ControlCommand> commands =
                env.fromSource(controlSource, WatermarkStrategy.noWatermarks(), "control")
                        .uid("control-source")
                        .setParallelism(1);
        BroadcastStream<ControlCommand> control = commands.broadcast(ControlCommand.STATE);

        DataStream<RawRecord> raw =
                env.fromSource(source, WatermarkStrategy.noWatermarks(), "requests")
                        .uid("requests-source");

        SingleOutputStreamOperator<RoutedRequest> routed =
                raw.map(new RequestKeys())
                        .uid("request-keys")
                        .name("claimed tenant + request id")
                        // every copy of one request id to one subtask: the replay check's state
                        .keyBy(RequestKeys.KEY)
                        .connect(control)
                        .process(classifier(conf, executorParallelism))
                        .uid("decode-classify")
                        .name("decode + verify + classify + graph id");

        SingleOutputStreamOperator<Reply> replies =
                routed.keyBy(r -> r.shardKey())
                        // Flink's keyed-broadcast operator, telling the function through the
                        // task's mailbox when a batch on the inference thread is done
                        .connect(commands.broadcast())
                        .transform(
                                "warm graph executor",
                                TypeInformation.of(Reply.class),
                                new GraphExecutorOperator(
                                        executor(
                                                conf,
                                                new GraphDescriptors(
                                                        bootstrap,
                                                        conf.get(PipelineOptions.GRAPHS_TOPIC))),
                                        List.of(ControlCommand.STATE)))
                        .setParallelism(executorParallelism)
                        .setMaxParallelism(EXECUTOR_MAX_PARALLELISM)
                        .uid("graph-executor")
                        .name("warm graph executor");

        SingleOutputStreamOperator<ReplyRecord> encodedReplies =
                replies.union(
                                routed.getSideOutput(DecodeAndClassifyFunction.REJECTIONS),
                                // a split request's parts, answered in several slots, made one
                                replies.getSideOutput(GraphExecutorFunction.PART_REPLIES)
                                        .keyBy(SplitRequestJoin.KEY)
                                        .process(new SplitRequestJoin())
                                        .uid("split-request-join")
                                        .name("join split requests"))
                        .process(new EncodeReplies(PipelineOptions.replyTopics(conf)))
                        .uid("encode-replies")
                        .name("encode replies");
        encodedReplies
                .sinkTo(
                        sink(
                                conf,
                                bootstrap,
                                "replies",
                                new ReplySerializationSchema(PipelineOptions.replyTopics(conf)),
                                conf.get(PipelineOptions.REPLY_DELIVERY)))
                .uid("replies-sink")
                .name("replies → kafka_replyTopic");
        DataStream<KernelCostRecord> costs =
                replies.getSideOutput(GraphExecutorFunction.COST_RECORDS);
        costs.assignTimestampsAndWatermarks(
                        CostSummaries.watermarks(
                                conf.get(PipelineOptions.COST_SUMMARY_OUT_OF_ORDERNESS)))
                .uid("cost-event-time")
                .name("cost records' event time")
                .keyBy(CostSummaries::key)
                .window(TumblingEventTimeWindows.of(conf.get(PipelineOptions.COST_SUMMARY_WINDOW)))
                .aggregate(new CostSummaries.Sum(), new CostSummaries.ToSummary())
                .uid("cost-summary")
                .name("cost summary per tenant × kernel × window")
                .sinkTo(
                        sink(
                                conf,
                                bootstrap,
                                "cost-summary",
                                new KeyedAvroSerializationSchema<>(
                                        conf.get(PipelineOptions.COST_SUMMARY_TOPIC),
                                        CostSummary.class,
                                        s ->
                                                s.getTenantId()
                                                        + "/"
                                                        + s.getKernel()
                                                        + "/"
                                                        + s.getWindowStart().toEpochMilli())))
                .uid("cost-summary-sink")
                .name("cost summary");
        costs.sinkTo(
                        sink(
                                conf,
                                bootstrap,
                                "costs",
                                new KeyedAvroSerializationSchema<>(
                                        conf.get(PipelineOptions.COSTS_TOPIC),
                                        KernelCostRecord.class,
                                        KernelCostRecord::getRecordId)))
                .uid("costs-sink")
                .name("kernel cost records");
        replies.getSideOutput(GraphExecutorFunction.GRAPH_DESCRIPTORS)
                .sinkTo(
                        sink(
                                conf,
                                bootstrap,
                                "graphs",
                                new KeyedAvroSerializationSchema<>(
                                        conf.get(PipelineOptions.GRAPHS_TOPIC),
                                        ExecutionGraph.class,
                                        ExecutionGraph::getGraphId)))
                .uid("graphs-sink")
                .name("graph descriptors");
        replies.getSideOutput(GraphExecutorFunction.AUDIT_ENTRIES)
                .keyBy(AuditEntry::getTenantId)
                .process(
                        new AuditChainFunction(
                                conf.get(PipelineOptions.AUDIT_ANCHOR_EVERY),
                                conf.get(PipelineOptions.AUDIT_ANCHOR_INTERVAL).toMillis(),
                                CommittedChainHeads.onTopic(
                                        bootstrap,
                                        conf.get(PipelineOptions.AUDIT_TOPIC),
                                        AUDIT_TOPIC_READ_TIMEOUT)))
                .uid("audit-chain")
                .name("audit chain per tenant")
                // always transactional: entries appended by an attempt that failed are aborted,
                // and the restored chain head appends them again
                .sinkTo(
                        sink(
                                conf,
                                bootstrap,
                                "audit",
                                new KeyedAvroSerializationSchema<>(
                                        conf.get(PipelineOptions.AUDIT_TOPIC),
                                        AuditEntry.class,
                                        AuditEntry::getTenantId)))
                .uid("audit-sink")
                .name("audit chain");
        routed.getSideOutput(DecodeAndClassifyFunction.DEAD_LETTERS)
                .union(encodedReplies.getSideOutput(EncodeReplies.DEAD_LETTERS))
                .sinkTo(
                        sink(
                                conf,
                                bootstrap,
                                "dlt",
                                new DeadLetterSerializationSchema(
                                        conf.get(PipelineOptions.DEAD_LETTERS_TOPIC),
                                        conf.get(PipelineOptions.MAX_RECORD_SIZE).getBytes())))
                .uid("dead-letters-sink")
                .name("dead letters");
    }

    /**
     * Installs the job's tiers in this JVM ({@link #tiers}), checked, so a wrong catalog entry or
     * profile fails the submission (or the command) rather than every task's open().
     */
    public static void installTiers(Configuration conf) {
        tiers(conf).install();
    }

    /**
     * The encoders ({@code zerolayer.models.file}) and quality profile the job's tiers come from.
     */
    public static TierSources tiers(Configuration conf) {
        return new TierSources(
                conf.get(PipelineOptions.MODELS_FILE),
                conf.get(PipelineOptions.QUALITY_PROFILES_FILE));
    }

    /** Fails the submission, not every executor's open(), on a hardware profile typo. */
    static void checkHardwareProfile(Configuration conf) {
        String hardwareProfile = conf.get(PipelineOptions.HARDWARE_PROFILE);
        if (!hardwareProfile.equals(HardwareFingerprint.AUTO)) {
            HardwareFingerprint.resolve(
                    hardwareProfile,
                    HardwareProfiles.builtInWith(
                            readOptional(conf, PipelineOptions.HARDWARE_PROFILES_FILE)));
        }
    }

    /**
     * The decode, type-check and graph-id operator, configured by {@code conf}. The contracts are
     * parsed here so a broken tasks.yaml fails the submission, not the running job; the operator
     * gets their text and parses it again in open().
     */
    static DecodeAndClassifyFunction classifier(Configuration conf, int executorParallelism) {
        DecodeAndClassifyFunction classifier =
                unauthenticatedClassifier(conf, executorParallelism)
                        .withSplitting(
                                conf.get(PipelineOptions.SPLIT_MIN_TOKENS),
                                PipelineOptions.execution(conf));
        String tenants = conf.get(PipelineOptions.TENANTS_FILE);
        if (tenants != null) {
            classifier.withTenants(tenants, null); // their quotas apply in either auth mode
        }
        if (conf.get(PipelineOptions.AUTH_MODE) == AuthMode.NONE) {
            return classifier;
        }
        RequestAuthenticator authenticator =
                new RequestAuthenticator(conf.get(PipelineOptions.AUTH_MAX_CLOCK_SKEW));
        return classifier.withAuthentication(authenticator, authenticator.replayWindow());
    }

    /**
     * Fails unless requests can be verified as configured: hmac needs a tenants file, and one this
     * process can read must parse; none is said loudly.
     */
    static void checkAuthentication(Configuration conf) {
        if (conf.get(PipelineOptions.AUTH_MODE) == AuthMode.NONE) {
            LOG.warn(
                    "{} is none: requests are not verified, and any writer of the requests topic"
                            + " can run work billed to any tenant. Use hmac with {} unless every"
                            + " writer is trusted.",
                    PipelineOptions.AUTH_MODE.key(),
                    PipelineOptions.TENANTS_FILE.key());
            return;
        }
        String file =
                conf.getOptional(PipelineOptions.TENANTS_FILE)
                        .orElseThrow(
                                () ->
                                        new IllegalArgumentException(
                                                PipelineOptions.AUTH_MODE.key()
                                                        + " is hmac (the default), so set "
                                                        + PipelineOptions.TENANTS_FILE.key()
                                                        + " to the tenants file (docs/tenants.md),"
                                                        + " or set "
                                                        + PipelineOptions.AUTH_MODE.key()
                                                        + ": none if every writer of the"
                                                        + " requests topic is trusted"));
        if (Files.isReadable(Path.of(file))) {
            LOG.info("Requests are verified against {}", TenantRegistry.load(Path.of(file)));
        } else {
            LOG.warn(
                    "Tenants file {} is not readable here; each TaskManager reads it when the job"
                            + " starts",
                    file);
        }
    }

    /** The classifier without authentication, which {@link #classifier} adds. */
    static DecodeAndClassifyFunction unauthenticatedClassifier(
            Configuration conf, int executorParallelism) {
        return new DecodeAndClassifyFunction(
                        contracts(conf).source(),
                        conf.getOptional(PipelineOptions.CONTRACTS_FILE).orElse(null),
                        new RequestAdmission(
                                PipelineOptions.replyTopics(conf),
                                new KnownTopics(
                                        conf.get(PipelineOptions.BOOTSTRAP_SERVERS),
                                        MISSING_REPLY_TOPIC_REFRESH.toMillis())),
                        SafeModePolicy.of(
                                conf.get(PipelineOptions.SAFE_MODE_POLICY),
                                conf.get(PipelineOptions.TENANT_SAFE_MODE_POLICIES)),
                        new HotGraphSharder(
                                executorParallelism,
                                EXECUTOR_MAX_PARALLELISM,
                                conf.get(PipelineOptions.REQUESTS_PER_SHARD),
                                conf.get(PipelineOptions.LOAD_PER_SHARD)))
                .withHardware(
                        conf.get(PipelineOptions.HARDWARE_PROFILE),
                        readOptional(conf, PipelineOptions.HARDWARE_PROFILES_FILE),
                        conf.get(PipelineOptions.INTRA_OP_THREADS))
                .withTiers(tiers(conf));
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
                        .withPassTokens(conf.get(PipelineOptions.BATCH_MAX_TOKENS))
                        .withTiers(tiers(conf));
        String tenants = conf.get(PipelineOptions.TENANTS_FILE);
        return tenants == null ? executor : executor.withTenants(tenants, null);
    }

    /** How executor slots use their TaskManager's embedding cache, from {@code conf}. */
    static EmbeddingCache.Settings embeddingCache(Configuration conf) {
        return new EmbeddingCache.Settings(
                conf.get(PipelineOptions.EMBEDDING_CACHE_SIZE).getBytes(),
                conf.get(PipelineOptions.EMBEDDING_CACHE_SCOPE),
                conf.get(PipelineOptions.EMBEDDING_CACHE_COMPLIANCE_LEVEL_3));
    }

    /** What each executor slot is set up with, from {@code conf}. */
    static ExecutorSetup setup(Configuration conf, GraphDescriptors graphsTopic) {
        return new ExecutorSetup(
                contracts(conf).source(),
                conf.getOptional(PipelineOptions.CONTRACTS_FILE).orElse(null),
                conf.get(PipelineOptions.HARDWARE_PROFILE),
                readOptional(conf, PipelineOptions.HARDWARE_PROFILES_FILE),
                conf.get(PipelineOptions.INTRA_OP_THREADS),
                new WarmGraphCache.Bounds(
                        conf.get(PipelineOptions.GRAPH_CACHE_CAPACITY),
                        conf.get(PipelineOptions.GRAPH_CACHE_SIZE).getBytes(),
                        conf.get(PipelineOptions.GRAPH_CACHE_TTL).toMillis()),
                precompile(conf),
                graphsTopic,
                PipelineOptions.execution(conf),
                prices(conf),
                conf.get(PipelineOptions.INFERENCE_THREAD),
                conf.get(PipelineOptions.BATCH_SLICE).toMillis(),
                conf.get(FaultInjection.CRASH_AFTER_REQUESTS));
    }

    /** A sink of the bill's records, the graphs or the dead letters: always exactly once. */
    private static <T> KafkaSink<T> sink(
            Configuration conf,
            String bootstrap,
            String name,
            KafkaRecordSerializationSchema<T> schema) {
        return sink(conf, bootstrap, name, schema, ReplyDelivery.EXACTLY_ONCE);
    }

    /**
     * A Kafka sink. Exactly once: transactions that commit with the checkpoint. At least once: an
     * idempotent producer that sends each record at once ({@code linger.ms} 0) and flushes before
     * each checkpoint completes, so nothing a checkpoint covers is lost.
     *
     * @param name names the sink's transactional ids, after {@link
     *     PipelineOptions#TRANSACTIONAL_ID_PREFIX}
     */
    public static <T> KafkaSink<T> sink(
            Configuration conf,
            String bootstrap,
            String name,
            KafkaRecordSerializationSchema<T> schema,
            ReplyDelivery delivery) {
        var builder =
                KafkaSink.<T>builder()
                        .setBootstrapServers(bootstrap)
                        .setRecordSerializer(schema)
                        .setProperty(
                                "max.request.size",
                                String.valueOf(
                                        conf.get(PipelineOptions.MAX_RECORD_SIZE).getBytes()))
                        // a record larger than the producer's buffer fails however large
                        // max.request.size is; the buffer is allocated as records need it
                        .setProperty(
                                "buffer.memory",
                                String.valueOf(
                                        Math.max(
                                                32L << 20,
                                                conf.get(PipelineOptions.MAX_RECORD_SIZE).getBytes()
                                                        + (1L << 20))));
        if (delivery == ReplyDelivery.AT_LEAST_ONCE) {
            return builder.setDeliveryGuarantee(DeliveryGuarantee.AT_LEAST_ONCE)
                    .setProperty("enable.idempotence", "true")
                    .setProperty("acks", "all")
                    .setProperty("linger.ms", "0")
                    .build();
        }
        return builder.setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
                // nothing in a transaction is visible before the checkpoint commits it, so the
                // producer may wait to send fewer, larger requests (the broker's work is per
                // request); the flush before each checkpoint sends whatever still waits
                .setProperty("linger.ms", String.valueOf(TRANSACTIONAL_LINGER.toMillis()))
                .setProperty("batch.size", String.valueOf(TRANSACTIONAL_BATCH_BYTES))
                .setTransactionalIdPrefix(
                        conf.get(PipelineOptions.TRANSACTIONAL_ID_PREFIX) + "-" + name)
                .setTransactionNamingStrategy(namingStrategy(schema))
                .setProperty(
                        "transaction.timeout.ms",
                        String.valueOf(conf.get(PipelineOptions.TRANSACTION_TIMEOUT).toMillis()))
                .build();
    }

    /**
     * How a sink names its transactions. The broker keeps every transactional id it has seen for
     * transactional.id.expiration.ms (7 days by default); naming one per checkpoint, at 1 s
     * checkpoints, leaves 600 000 ids a sink writer a week. A sink whose topics are known (a list,
     * or for the replies the allow-list's pattern) reuses a few ids instead: on restart it finds
     * its lingering transactions by asking the broker which producers have open ones on those
     * topics. Reusing ids also makes the re-commit of an already committed transaction after a
     * restore a WARN the connector says is expected in recovery, where one-use ids log it as an
     * ERROR about data loss.
     */
    static TransactionNamingStrategy namingStrategy(KafkaRecordSerializationSchema<?> schema) {
        return schema instanceof KafkaDatasetFacetProvider
                ? TransactionNamingStrategy.POOLING
                : TransactionNamingStrategy.INCREMENTING;
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

    /** The structures to compile when each executor opens; none unless configured. */
    static PrecompileList precompile(Configuration conf) {
        return conf.getOptional(PipelineOptions.PRECOMPILE_FILE)
                .map(
                        file -> {
                            try {
                                return PrecompileList.parse(Files.readString(Path.of(file)));
                            } catch (java.io.IOException e) {
                                throw new IllegalArgumentException(
                                        "Cannot read "
                                                + PipelineOptions.PRECOMPILE_FILE.key()
                                                + " "
                                                + file,
                                        e);
                            }
                        })
                .orElse(PrecompileList.NONE);
    }

    /** The price sheet cost records are billed at: the configured one or the built-in. */
    public static PriceSheet prices(Configuration conf) {
        return conf.getOptional(PipelineOptions.PRICES_FILE)
                .map(file -> PriceSheet.load(Path.of(file)))
                .orElseGet(PriceSheet::builtIn);
    }

    /** The task contracts the job checks requests against. */
    public static TaskContracts contracts(Configuration conf) {
        return conf.getOptional(PipelineOptions.CONTRACTS_FILE)
                .map(file -> TaskContracts.load(Path.of(file)))
                .orElseGet(TaskContracts::builtIn);
    }
}
