package io.zerolayer.jobs;

import io.zerolayer.operators.documents.AnalysisTask;
import io.zerolayer.operators.documents.DocumentFile;
import io.zerolayer.operators.door.RequestAuthenticator;
import io.zerolayer.operators.flink.ControlCommand;
import io.zerolayer.operators.flink.DecodeAndClassifyFunction;
import io.zerolayer.operators.flink.GraphExecutorFunction;
import io.zerolayer.operators.flink.RequestKeys;
import io.zerolayer.operators.flink.batch.DocumentRequests;
import io.zerolayer.operators.flink.batch.WholeFileFormat;
import io.zerolayer.operators.kafka.DeadLetter;
import io.zerolayer.operators.kafka.RawRecord;
import io.zerolayer.operators.replies.AnalysisEvent;
import io.zerolayer.operators.replies.Reply;
import io.zerolayer.operators.routing.RoutedRequest;
import io.zerolayer.operators.tenants.AuthMode;
import io.zerolayer.operators.tenants.TenantRegistry;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.file.src.FileSource;
import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.datastream.BroadcastStream;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Batch document analysis: the streaming job's classifier, compiler and executor over files, in
 * Flink's BATCH runtime mode.
 *
 * <pre>
 * FileSource (whole files) ─► file → requests (read, split long documents) ─► decode + classify
 *   ─► keyBy(graph) ─► warm graph executor ─► responses + kernel cost records ─► the client
 * </pre>
 *
 * <p>Requests are the very records the streaming job would read from Kafka (Avro single-object), so
 * a document gets the same graph, the same answer and the same cost record ids either way. In BATCH
 * mode the executor's input is sorted by key, so each graph's requests arrive together and run in
 * full micro-batches; the queue's flush timer fires when the key's input ends. Everything leaves as
 * one stream of {@link AnalysisEvent}s for the client to write: responses, cost records and the
 * files that never became requests (unreadable, unsupported, bad JSON lines).
 *
 * <pre>{@code
 * DataStream<AnalysisEvent> events =
 *         BatchAnalysisJob.builder()
 *                 .setFiles(List.of(Path.fromLocalFile(new File("papers"))))
 *                 .setTask(AnalysisTask.builder("summarize").build())
 *                 .build()
 *                 .define(env, conf);
 * }</pre>
 */
public final class BatchAnalysisJob {
    public static final String JOB_NAME = "zerolayer-analyze";

    private final List<Path> files;
    private final AnalysisTask task;
    private final String tenant;
    private final String baseDir;
    private final Set<String> done;

    private BatchAnalysisJob(Builder b) {
        this.files = List.copyOf(b.files);
        this.task = b.task;
        this.tenant = b.tenant;
        this.baseDir = b.baseDir;
        this.done = Set.copyOf(b.done);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Adds the job to {@code env} (switching it to BATCH mode) and returns its event stream. */
    public DataStream<AnalysisEvent> define(StreamExecutionEnvironment env, Configuration conf) {
        env.setRuntimeMode(RuntimeExecutionMode.BATCH);
        StreamingJob.checkHardwareProfile(conf);
        StreamingJob.installTiers(conf);
        int parallelism = env.getParallelism();
        Signing signing = signing(conf, tenant);
        FileSource<DocumentFile> source =
                FileSource.forBulkFileFormat(
                                new WholeFileFormat(
                                        conf.get(AnalyzeOptions.ANALYZE_MAX_FILE_SIZE).getBytes()),
                                files.toArray(Path[]::new))
                        .build();
        // no control commands in a batch run, but the operators take the broadcast input: an
        // empty stream of them (Flink's collection source cannot be empty, so one is filtered out)
        BroadcastStream<ControlCommand> control =
                env.fromData(TypeInformation.of(ControlCommand.class), new ControlCommand())
                        .setParallelism(1)
                        .filter(c -> false)
                        .name("control (none)")
                        .setParallelism(1)
                        .broadcast(ControlCommand.STATE);

        SingleOutputStreamOperator<RawRecord> requests =
                env.fromSource(source, WatermarkStrategy.noWatermarks(), "files")
                        .uid("files-source")
                        .process(
                                new DocumentRequests(
                                                task,
                                                conf.get(AnalyzeOptions.ANALYZE_PART_CHARS),
                                                tenant,
                                                baseDir,
                                                done)
                                        .signedFrom(signing.file(), signing.yaml()))
                        .uid("file-requests")
                        .name("file → requests");
        SingleOutputStreamOperator<RoutedRequest> routed =
                requests.map(new RequestKeys())
                        .uid("request-keys")
                        .name("claimed tenant + request id")
                        .keyBy(RequestKeys.KEY)
                        .connect(control)
                        .process(classifier(conf, parallelism, signing))
                        .uid("decode-classify")
                        .name("decode + verify + classify + graph id");
        SingleOutputStreamOperator<Reply> replies =
                routed.keyBy(r -> r.shardKey())
                        .connect(control)
                        // no barriers to let through, and processing-time polls would only
                        // fire at the end of each key in BATCH mode: batches run on the task
                        // thread
                        .process(
                                new GraphExecutorFunction(
                                                JobFunctions.setup(conf, null)
                                                        .withInferenceThread(false))
                                        .withEmbeddingCache(JobFunctions.embeddingCache(conf)))
                        .setMaxParallelism(StreamingJob.EXECUTOR_MAX_PARALLELISM)
                        .uid("graph-executor")
                        .name("warm graph executor");

        DataStream<AnalysisEvent> responses =
                replies.union(routed.getSideOutput(DecodeAndClassifyFunction.REJECTIONS))
                        .map(r -> AnalysisEvent.of(r.response))
                        .name("responses");
        DataStream<AnalysisEvent> costs =
                replies.getSideOutput(GraphExecutorFunction.COST_RECORDS)
                        .map(AnalysisEvent::of)
                        .name("kernel cost records");
        DataStream<AnalysisEvent> deadLetters =
                routed.getSideOutput(DecodeAndClassifyFunction.DEAD_LETTERS)
                        .map(BatchAnalysisJob::deadLetter)
                        .name("undecodable requests");
        return responses.union(costs, deadLetters, requests.getSideOutput(DocumentRequests.ERRORS));
    }

    /** A request the job made itself could not be decoded: a bug, but it still gets its row. */
    private static AnalysisEvent deadLetter(DeadLetter d) {
        String path = d.original.topic.startsWith("file:") ? d.original.topic.substring(5) : "?";
        return AnalysisEvent.error(
                path,
                (int) d.original.offset,
                null,
                null,
                "request could not be decoded: " + d.exceptionMessage);
    }

    /** Builds a {@link BatchAnalysisJob}; {@link #build()} says what is missing. */
    /**
     * Where the run's requests are signed from and verified against: the tenants file when one is
     * set (the tenant must be in it), else a registry of this run's own making holding only its
     * tenant with a fresh random key; neither when zerolayer.auth.mode is none.
     */
    record Signing(String file, String yaml) {}

    static Signing signing(Configuration conf, String tenant) {
        if (conf.get(TenancyOptions.AUTH_MODE) == AuthMode.NONE) {
            return new Signing(null, null);
        }
        var file = conf.getOptional(TenancyOptions.TENANTS_FILE);
        if (file.isPresent()) {
            return new Signing(file.get(), null);
        }
        byte[] key = new byte[32];
        new java.security.SecureRandom().nextBytes(key);
        return new Signing(null, TenantRegistry.yamlOf(java.util.Map.of(tenant, key)));
    }

    private static DecodeAndClassifyFunction classifier(
            Configuration conf, int parallelism, Signing signing) {
        DecodeAndClassifyFunction classifier =
                JobFunctions.unauthenticatedClassifier(conf, parallelism);
        if (signing.file() == null && signing.yaml() == null) {
            return classifier;
        }
        // no replay check: the run reads the user's own files, where one id twice is no attack
        return classifier
                .withTenants(signing.file(), signing.yaml())
                .withAuthentication(
                        new RequestAuthenticator(conf.get(TenancyOptions.AUTH_MAX_CLOCK_SKEW)),
                        null);
    }

    public static final class Builder {
        private List<Path> files = List.of();
        private AnalysisTask task;
        private String tenant = "batch";
        private String baseDir;
        private Set<String> done = Set.of();

        /** The files to read (folders are expanded by the caller, so it can hash and count). */
        public Builder setFiles(List<Path> files) {
            this.files = Objects.requireNonNull(files, "files");
            return this;
        }

        public Builder setTask(AnalysisTask task) {
            this.task = Objects.requireNonNull(task, "task");
            return this;
        }

        /** The tenant requests are billed to (default {@code batch}). */
        public Builder setTenant(String tenant) {
            this.tenant = Objects.requireNonNull(tenant, "tenant");
            return this;
        }

        /** Paths under this folder are reported relative to it. */
        public Builder setBaseDir(String baseDir) {
            this.baseDir = Objects.requireNonNull(baseDir, "baseDir");
            return this;
        }

        /** Units ({@code DocumentAttributes.unitKey}) a previous run answered: not run again. */
        public Builder setDone(Set<String> done) {
            this.done = Objects.requireNonNull(done, "done");
            return this;
        }

        public BatchAnalysisJob build() {
            if (task == null) {
                throw new IllegalArgumentException(
                        "A batch analysis needs a task: set --task summarize|classify|answer|"
                                + "extract|embed");
            }
            if (files.isEmpty()) {
                throw new IllegalArgumentException(
                        "No input files: name files or folders holding "
                                + io.zerolayer.operators.documents.DocumentFormat.extensions());
            }
            return new BatchAnalysisJob(this);
        }
    }
}
