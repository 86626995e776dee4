package io.zerolayer.jobs;

import io.zerolayer.gpu.hardware.HardwareFingerprint;
import io.zerolayer.gpu.hardware.HardwareProfiles;
import io.zerolayer.operators.audit.CommittedChainHeads;
import io.zerolayer.operators.flink.AuditChainFunction;
import io.zerolayer.operators.flink.ControlCommand;
import io.zerolayer.operators.flink.ControlCommandDeserializationSchema;
import io.zerolayer.operators.flink.CostSummaries;
import io.zerolayer.operators.flink.DeadLetterSerializationSchema;
import io.zerolayer.operators.flink.DecodeAndClassifyFunction;
import io.zerolayer.operators.flink.EncodeReplies;
import io.zerolayer.operators.flink.GraphExecutorFunction;
import io.zerolayer.operators.flink.GraphExecutorOperator;
import io.zerolayer.operators.flink.KeyedAvroSerializationSchema;
import io.zerolayer.operators.flink.RawRecordDeserializationSchema;
import io.zerolayer.operators.flink.ReplySerializationSchema;
import io.zerolayer.operators.flink.RequestKeys;
import io.zerolayer.operators.flink.SplitRequestJoin;
import io.zerolayer.operators.kafka.KafkaConnection;
import io.zerolayer.operators.kafka.RawRecord;
import io.zerolayer.operators.kafka.ReplyRecord;
import io.zerolayer.operators.quality.TierSources;
import io.zerolayer.operators.replies.Reply;
import io.zerolayer.operators.routing.RoutedRequest;
import io.zerolayer.operators.tenants.AuthMode;
import io.zerolayer.operators.tenants.TenantRegistry;
import io.zerolayer.operators.warmup.GraphDescriptors;
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

    /**
     * The longest reading the audit topic may take, where a chain's head is not in state; the task
     * fails and retries rather than fork a chain.
     */
    static final java.time.Duration AUDIT_TOPIC_READ_TIMEOUT = java.time.Duration.ofMinutes(5);

    private StreamingJob() {}

    /** Adds the job's operators to {@code env}, configured by {@link PipelineOptions}. */
    public static void define(StreamExecutionEnvironment env, Configuration conf) {
        KafkaConnection kafka = KafkaOptions.connection(conf);
        env.enableCheckpointing(
                conf.get(ExecutorOptions.CHECKPOINT_INTERVAL).toMillis(),
                CheckpointingMode.EXACTLY_ONCE);
        checkHardwareProfile(conf);
        installTiers(conf);
        checkAuthentication(conf);

        DataStream<ControlCommand> commands = controlCommands(env, conf, kafka);
        SingleOutputStreamOperator<RoutedRequest> routed = classified(env, conf, kafka, commands);
        SingleOutputStreamOperator<Reply> replies =
                executed(routed, commands, conf, kafka, env.getParallelism());
        SingleOutputStreamOperator<ReplyRecord> encoded = repliesSent(routed, replies, conf, kafka);
        costsBilled(replies.getSideOutput(GraphExecutorFunction.COST_RECORDS), conf, kafka);
        replies.getSideOutput(GraphExecutorFunction.GRAPH_DESCRIPTORS)
                .sinkTo(
                        JobSinks.sink(
                                conf,
                                kafka,
                                "graphs",
                                new KeyedAvroSerializationSchema<>(
                                        conf.get(KafkaOptions.GRAPHS_TOPIC),
                                        ExecutionGraph.class,
                                        ExecutionGraph::getGraphId)))
                .uid("graphs-sink")
                .name("graph descriptors");
        auditChains(replies.getSideOutput(GraphExecutorFunction.AUDIT_ENTRIES), conf, kafka);
        routed.getSideOutput(DecodeAndClassifyFunction.DEAD_LETTERS)
                .union(encoded.getSideOutput(EncodeReplies.DEAD_LETTERS))
                .sinkTo(
                        JobSinks.sink(
                                conf,
                                kafka,
                                "dlt",
                                new DeadLetterSerializationSchema(
                                        conf.get(KafkaOptions.DEAD_LETTERS_TOPIC),
                                        conf.get(KafkaOptions.MAX_RECORD_SIZE).getBytes())))
                .uid("dead-letters-sink")
                .name("dead letters");
    }

    /**
     * The control topic's commands, for every classifier and executor slot. Read from its end:
     * reloaded contracts survive restarts in broadcast state, not by replaying commands.
     */
    private static DataStream<ControlCommand> controlCommands(
            StreamExecutionEnvironment env, Configuration conf, KafkaConnection kafka) {
        KafkaSource<ControlCommand> source =
                KafkaSource.<ControlCommand>builder()
                        .setBootstrapServers(kafka.bootstrapServers())
                        .setProperties(JobSinks.shared(kafka))
                        .setTopics(conf.get(KafkaOptions.CONTROL_TOPIC))
                        .setGroupId(conf.get(KafkaOptions.GROUP_ID) + "-control")
                        .setStartingOffsets(
                                OffsetsInitializer.committedOffsets(OffsetResetStrategy.LATEST))
                        .setDeserializer(new ControlCommandDeserializationSchema())
                        .setProperty("isolation.level", "read_committed")
                        .build();
        return env.fromSource(source, WatermarkStrategy.noWatermarks(), "control")
                .uid("control-source")
                .setParallelism(1);
    }

    /**
     * The requests topic's records, keyed by the tenant and request id they claim (every copy of
     * one request id to one subtask: the replay check's state), decoded, verified, classified and
     * given their graph id. Rejections and dead letters leave as side outputs.
     */
    private static SingleOutputStreamOperator<RoutedRequest> classified(
            StreamExecutionEnvironment env,
            Configuration conf,
            KafkaConnection kafka,
            DataStream<ControlCommand> commands) {
        KafkaSource<RawRecord> source =
                KafkaSource.<RawRecord>builder()
                        .setBootstrapServers(kafka.bootstrapServers())
                        .setProperties(JobSinks.shared(kafka))
                        .setTopics(conf.get(KafkaOptions.REQUESTS_TOPIC))
                        .setGroupId(conf.get(KafkaOptions.GROUP_ID))
                        .setStartingOffsets(
                                OffsetsInitializer.committedOffsets(OffsetResetStrategy.EARLIEST))
                        .setDeserializer(new RawRecordDeserializationSchema())
                        .setProperty("isolation.level", "read_committed")
                        .build();
        BroadcastStream<ControlCommand> control = commands.broadcast(ControlCommand.STATE);
        return env.fromSource(source, WatermarkStrategy.noWatermarks(), "requests")
                .uid("requests-source")
                .map(new RequestKeys())
                .uid("request-keys")
                .name("claimed tenant + request id")
                .keyBy(RequestKeys.KEY)
                .connect(control)
                .process(JobFunctions.classifier(conf, env.getParallelism()))
                .uid("decode-classify")
                .name("decode + verify + classify + graph id");
    }

    /**
     * The requests run by the warm graph executor, keyed by shard of graph id; cost records, graph
     * descriptors, audit entries and parts of split requests leave as side outputs.
     */
    private static SingleOutputStreamOperator<Reply> executed(
            SingleOutputStreamOperator<RoutedRequest> routed,
            DataStream<ControlCommand> commands,
            Configuration conf,
            KafkaConnection kafka,
            int parallelism) {
        return routed.keyBy(r -> r.shardKey())
                // Flink's keyed-broadcast operator, telling the function through the task's
                // mailbox when a batch on the inference thread is done
                .connect(commands.broadcast())
                .transform(
                        "warm graph executor",
                        TypeInformation.of(Reply.class),
                        new GraphExecutorOperator(
                                JobFunctions.executor(
                                        conf,
                                        new GraphDescriptors(
                                                kafka, conf.get(KafkaOptions.GRAPHS_TOPIC))),
                                List.of(ControlCommand.STATE)))
                .setParallelism(parallelism)
                .setMaxParallelism(EXECUTOR_MAX_PARALLELISM)
                .uid("graph-executor")
                .name("warm graph executor");
    }

    /**
     * Every reply, the classifier's rejections and the joined parts of split requests, encoded and
     * written to its reply topic; a reply that cannot be written leaves as a dead letter.
     */
    private static SingleOutputStreamOperator<ReplyRecord> repliesSent(
            SingleOutputStreamOperator<RoutedRequest> routed,
            SingleOutputStreamOperator<Reply> replies,
            Configuration conf,
            KafkaConnection kafka) {
        SingleOutputStreamOperator<ReplyRecord> encoded =
                replies.union(
                                routed.getSideOutput(DecodeAndClassifyFunction.REJECTIONS),
                                replies.getSideOutput(GraphExecutorFunction.PART_REPLIES)
                                        .keyBy(SplitRequestJoin.KEY)
                                        .process(new SplitRequestJoin())
                                        .uid("split-request-join")
                                        .name("join split requests"))
                        .process(new EncodeReplies(PipelineOptions.replyTopics(conf)))
                        .uid("encode-replies")
                        .name("encode replies");
        encoded.sinkTo(
                        JobSinks.sink(
                                conf,
                                kafka,
                                "replies",
                                new ReplySerializationSchema(PipelineOptions.replyTopics(conf)),
                                conf.get(KafkaOptions.REPLY_DELIVERY)))
                .uid("replies-sink")
                .name("replies → kafka_replyTopic");
        return encoded;
    }

    /** The kernel cost records, and their sums per tenant × kernel × window. */
    private static void costsBilled(
            DataStream<KernelCostRecord> costs, Configuration conf, KafkaConnection kafka) {
        costs.assignTimestampsAndWatermarks(
                        CostSummaries.watermarks(
                                conf.get(BillingOptions.COST_SUMMARY_OUT_OF_ORDERNESS)))
                .uid("cost-event-time")
                .name("cost records' event time")
                .keyBy(CostSummaries::key)
                .window(TumblingEventTimeWindows.of(conf.get(BillingOptions.COST_SUMMARY_WINDOW)))
                .aggregate(new CostSummaries.Sum(), new CostSummaries.ToSummary())
                .uid("cost-summary")
                .name("cost summary per tenant × kernel × window")
                .sinkTo(
                        JobSinks.sink(
                                conf,
                                kafka,
                                "cost-summary",
                                new KeyedAvroSerializationSchema<>(
                                        conf.get(KafkaOptions.COST_SUMMARY_TOPIC),
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
                        JobSinks.sink(
                                conf,
                                kafka,
                                "costs",
                                new KeyedAvroSerializationSchema<>(
                                        conf.get(KafkaOptions.COSTS_TOPIC),
                                        KernelCostRecord.class,
                                        KernelCostRecord::getRecordId)))
                .uid("costs-sink")
                .name("kernel cost records");
    }

    /**
     * The level-3 tenants' audit chains, linked per tenant. Always transactional: entries appended
     * by an attempt that failed are aborted, and the restored chain head appends them again.
     */
    private static void auditChains(
            DataStream<AuditEntry> entries, Configuration conf, KafkaConnection kafka) {
        entries.keyBy(AuditEntry::getTenantId)
                .process(
                        new AuditChainFunction(
                                conf.get(BillingOptions.AUDIT_ANCHOR_EVERY),
                                conf.get(BillingOptions.AUDIT_ANCHOR_INTERVAL).toMillis(),
                                CommittedChainHeads.onTopic(
                                        kafka,
                                        conf.get(KafkaOptions.AUDIT_TOPIC),
                                        AUDIT_TOPIC_READ_TIMEOUT)))
                .uid("audit-chain")
                .name("audit chain per tenant")
                .sinkTo(
                        JobSinks.sink(
                                conf,
                                kafka,
                                "audit",
                                new KeyedAvroSerializationSchema<>(
                                        conf.get(KafkaOptions.AUDIT_TOPIC),
                                        AuditEntry.class,
                                        AuditEntry::getTenantId)))
                .uid("audit-sink")
                .name("audit chain");
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
                conf.get(HardwareOptions.MODELS_FILE),
                conf.get(HardwareOptions.QUALITY_PROFILES_FILE));
    }

    /** Fails the submission, not every executor's open(), on a hardware profile typo. */
    static void checkHardwareProfile(Configuration conf) {
        String hardwareProfile = conf.get(HardwareOptions.HARDWARE_PROFILE);
        if (!hardwareProfile.equals(HardwareFingerprint.AUTO)) {
            HardwareFingerprint.resolve(
                    hardwareProfile,
                    HardwareProfiles.builtInWith(
                            JobFunctions.readOptional(
                                    conf, HardwareOptions.HARDWARE_PROFILES_FILE)));
        }
    }

    /**
     * Fails unless requests can be verified as configured: hmac needs a tenants file, and one this
     * process can read must parse; none is said loudly.
     */
    static void checkAuthentication(Configuration conf) {
        if (conf.get(TenancyOptions.AUTH_MODE) == AuthMode.NONE) {
            LOG.warn(
                    "{} is none: requests are not verified, and any writer of the requests topic"
                            + " can run work billed to any tenant. Use hmac with {} unless every"
                            + " writer is trusted.",
                    TenancyOptions.AUTH_MODE.key(),
                    TenancyOptions.TENANTS_FILE.key());
            return;
        }
        String file =
                conf.getOptional(TenancyOptions.TENANTS_FILE)
                        .orElseThrow(
                                () ->
                                        new IllegalArgumentException(
                                                TenancyOptions.AUTH_MODE.key()
                                                        + " is hmac (the default), so set "
                                                        + TenancyOptions.TENANTS_FILE.key()
                                                        + " to the tenants file (docs/tenants.md),"
                                                        + " or set "
                                                        + TenancyOptions.AUTH_MODE.key()
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
}
