package io.zerolayer.bench;

import io.zerolayer.gpu.EncoderModel;
import io.zerolayer.gpu.SentenceEncoder;
import io.zerolayer.gpu.hardware.HardwareFingerprint;
import io.zerolayer.gpu.hardware.HardwareProfiles;
import io.zerolayer.jobs.ExecutorOptions;
import io.zerolayer.jobs.HardwareOptions;
import io.zerolayer.jobs.JobSinks;
import io.zerolayer.jobs.KafkaOptions;
import io.zerolayer.jobs.PipelineOptions;
import io.zerolayer.operators.compiler.CostEstimator;
import io.zerolayer.operators.contracts.TaskContract;
import io.zerolayer.operators.contracts.TaskContracts;
import io.zerolayer.operators.execution.PerRequestAnalysis;
import io.zerolayer.operators.flink.EncodeReplies;
import io.zerolayer.operators.flink.RawRecordDeserializationSchema;
import io.zerolayer.operators.flink.ReplySerializationSchema;
import io.zerolayer.operators.kafka.RawRecord;
import io.zerolayer.operators.kafka.ReplyRoute;
import io.zerolayer.operators.prompt.ParsedPrompt;
import io.zerolayer.operators.prompt.PromptReader;
import io.zerolayer.operators.prompt.TagNode;
import io.zerolayer.operators.replies.Reply;
import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.AnalysisResponse;
import io.zerolayer.schemas.CostTotal;
import io.zerolayer.schemas.Diagnostic;
import io.zerolayer.schemas.Fidelity;
import io.zerolayer.schemas.ResponseStatus;
import io.zerolayer.schemas.Timings;
import io.zerolayer.schemas.serde.SingleObjectCodec;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;

/**
 * The two jobs ZeroLayer is compared with, in the streaming job's shape — the same Kafka source
 * (read_committed), checkpointing and reply sink (the same {@link PipelineOptions#REPLY_DELIVERY})
 * — with one per-record map function in between and no keying, no micro-batching and no compiled
 * graphs:
 *
 * <ul>
 *   <li>{@link Kind#NAIVE}: what a team writes around ONNX Runtime — each task's model fixed when
 *       the job is built, its session opened once, every record parsed and run alone.
 *   <li>{@link Kind#ROUTER}: the removed routing layer — every record read and checked, its
 *       features derived and its model and session picked from them at run time ({@link
 *       RuntimeRouter}), then run alone.
 * </ul>
 *
 * Both answer with the same decoders as a compiled graph ({@link PerRequestAnalysis}); a request
 * that fails becomes a FAILED response, so every request is answered.
 */
final class BaselineJob {
    enum Kind {
        NAIVE("naive-flink"),
        ROUTER("runtime-router");

        final String id;

        Kind(String id) {
            this.id = id;
        }
    }

    private BaselineJob() {}

    /**
     * @param taskModels for {@link Kind#NAIVE}: the model that serves each task
     */
    static void define(
            StreamExecutionEnvironment env,
            Configuration conf,
            Kind kind,
            String contractsYaml,
            Map<String, EncoderModel> taskModels) {
        io.zerolayer.operators.kafka.KafkaConnection kafka = KafkaOptions.connection(conf);
        env.enableCheckpointing(
                conf.get(ExecutorOptions.CHECKPOINT_INTERVAL).toMillis(),
                CheckpointingMode.EXACTLY_ONCE);
        KafkaSource<RawRecord> source =
                KafkaSource.<RawRecord>builder()
                        .setBootstrapServers(kafka.bootstrapServers())
                        .setProperties(io.zerolayer.jobs.JobSinks.shared(kafka))
                        .setTopics(conf.get(KafkaOptions.REQUESTS_TOPIC))
                        .setGroupId(conf.get(KafkaOptions.GROUP_ID) + "-" + kind.id)
                        .setStartingOffsets(
                                OffsetsInitializer.committedOffsets(OffsetResetStrategy.EARLIEST))
                        .setDeserializer(new RawRecordDeserializationSchema())
                        .setProperty("isolation.level", "read_committed")
                        .build();
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "requests")
                .uid("requests-source")
                .map(
                        new PerRecordAnalysis(
                                kind,
                                contractsYaml,
                                new HashMap<>(taskModels),
                                conf.get(HardwareOptions.HARDWARE_PROFILE),
                                conf.get(HardwareOptions.INTRA_OP_THREADS)))
                .uid("per-record-analysis")
                .name(kind.id + " map")
                // a reply that cannot be written is logged and dropped: no request of the bench's
                // workloads is one
                .process(new EncodeReplies(PipelineOptions.replyTopics(conf)))
                .uid("encode-replies")
                .name("encode replies")
                .sinkTo(
                        JobSinks.sink(
                                conf,
                                kafka,
                                kind.id,
                                new ReplySerializationSchema(PipelineOptions.replyTopics(conf)),
                                conf.get(KafkaOptions.REPLY_DELIVERY)))
                .uid("replies-sink")
                .name("replies → kafka_replyTopic");
    }

    /** The per-record map function of both baselines. */
    static final class PerRecordAnalysis extends RichMapFunction<RawRecord, Reply> {
        private final Kind kind;
        private final String contractsYaml;
        private final HashMap<String, EncoderModel> taskModels;
        private final String hardwareSetting;
        private final int intraOpThreads;
        private transient SingleObjectCodec<AnalysisRequest> codec;
        private transient TaskContracts contracts;
        private transient Map<EncoderModel, SentenceEncoder> sessions;
        private transient RuntimeRouter router;

        PerRecordAnalysis(
                Kind kind,
                String contractsYaml,
                HashMap<String, EncoderModel> taskModels,
                String hardwareSetting,
                int intraOpThreads) {
            this.kind = kind;
            this.contractsYaml = contractsYaml;
            this.taskModels = taskModels;
            this.hardwareSetting = hardwareSetting;
            this.intraOpThreads = intraOpThreads;
        }

        @Override
        public void open(OpenContext context) {
            codec = SingleObjectCodec.of(AnalysisRequest.class);
            contracts = TaskContracts.parse(contractsYaml);
            if (kind == Kind.NAIVE) {
                sessions = new java.util.HashMap<>();
                for (EncoderModel model : taskModels.values()) {
                    sessions.computeIfAbsent(model, m -> SentenceEncoder.open(m, intraOpThreads));
                }
            } else {
                HardwareFingerprint hardware =
                        HardwareFingerprint.resolve(hardwareSetting, HardwareProfiles.builtIn());
                router =
                        new RuntimeRouter(
                                contracts,
                                new CostEstimator(
                                        hardware.profile(), hardware.primary(), intraOpThreads),
                                intraOpThreads);
            }
        }

        @Override
        public Reply map(RawRecord raw) {
            ReplyRoute route = ReplyRoute.of(raw);
            AnalysisRequest request = codec.decode(raw.value);
            long start = System.nanoTime();
            AnalysisResponse.Builder response =
                    AnalysisResponse.newBuilder()
                            .setRequestId(request.getRequestId())
                            .setTenantId(request.getTenantId())
                            .setAttributes(request.getAttributes())
                            .setDiagnostics(List.of())
                            .setCost(new CostTotal(0, 0L, null, null));
            long routeMicros = 0;
            try {
                boolean strict = "strict".equals(request.getAttributes().get("compliance"));
                String output;
                String task;
                String format;
                String model;
                if (kind == Kind.ROUTER) {
                    RuntimeRouter.Route r = router.route(request.getPrompt());
                    routeMicros = r.decideNanos() / 1_000;
                    output =
                            PerRequestAnalysis.analyse(
                                    r.parsed(), r.decoder(), r.outputFormat(), strict, r.session());
                    task = r.task();
                    format = r.outputFormat();
                    model = r.session().model().id();
                } else {
                    ParsedPrompt parsed = PromptReader.read(request.getPrompt());
                    TagNode taskTag = parsed.firstTag("task");
                    TagNode formatTag = parsed.firstTag("output_format");
                    task = taskTag == null ? null : taskTag.value();
                    TaskContract contract = task == null ? null : contracts.task(task);
                    if (contract == null) {
                        throw new IllegalArgumentException("Unknown task '" + task + "'");
                    }
                    format = formatTag == null ? "json" : formatTag.value();
                    EncoderModel m = taskModels.getOrDefault(task, EncoderModel.MINILM_L6_V2_FP32);
                    SentenceEncoder session =
                            sessions.computeIfAbsent(
                                    m, x -> SentenceEncoder.open(x, intraOpThreads));
                    output =
                            PerRequestAnalysis.analyse(
                                    parsed, contract.decoder(), format, strict, session);
                    model = m.id();
                }
                response.setStatus(ResponseStatus.OK)
                        .setFidelity(Fidelity.FULL)
                        .setTask(task)
                        .setOutputFormat(format)
                        .setOutput(output)
                        .setGraphId(kind.id + "/" + model);
            } catch (RuntimeException e) {
                response.setStatus(ResponseStatus.FAILED)
                        .setDiagnostics(
                                List.of(
                                        new Diagnostic(
                                                "ZL900",
                                                "error",
                                                0,
                                                0,
                                                String.valueOf(e.getMessage()),
                                                null)));
            }
            long micros = (System.nanoTime() - start) / 1_000;
            response.setTimings(
                    new Timings(
                            request.getSubmittedAt(),
                            Instant.now(),
                            routeMicros,
                            0L,
                            micros - routeMicros));
            return new Reply(response.build(), route);
        }

        @Override
        public void close() {
            if (sessions != null) {
                sessions.values().forEach(SentenceEncoder::close);
            }
            if (router != null) {
                router.close();
            }
        }
    }
}
