package io.zerolayer.jobs;

import io.zerolayer.gpu.ArenaExtendStrategy;
import io.zerolayer.operators.contracts.SafeModePolicy;
import io.zerolayer.operators.execution.ComplianceMode;
import io.zerolayer.operators.execution.EmbeddingCache;
import io.zerolayer.operators.flink.GraphExecutorFunction;
import io.zerolayer.operators.tenants.AuthMode;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;

/** Every setting of the streaming job, with its default; set them in config.yaml or on the CLI. */
public final class PipelineOptions {
    private PipelineOptions() {}

    public static final ConfigOption<String> BOOTSTRAP_SERVERS =
            ConfigOptions.key("zerolayer.kafka.bootstrap-servers")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("Kafka bootstrap servers, e.g. localhost:9092.");

    public static final ConfigOption<String> REQUESTS_TOPIC =
            ConfigOptions.key("zerolayer.topics.requests")
                    .stringType()
                    .defaultValue("zerolayer.requests")
                    .withDescription("Topic the job reads AnalysisRequests from.");

    public static final ConfigOption<String> RESPONSES_TOPIC =
            ConfigOptions.key("zerolayer.topics.responses")
                    .stringType()
                    .defaultValue("zerolayer.responses")
                    .withDescription("Reply topic for requests without a kafka_replyTopic header.");

    public static final ConfigOption<ReplyDelivery> REPLY_DELIVERY =
            ConfigOptions.key("zerolayer.replies.delivery-guarantee")
                    .enumType(ReplyDelivery.class)
                    .defaultValue(ReplyDelivery.AT_LEAST_ONCE)
                    .withDescription(
                            "at-least-once: a reply is sent as soon as its batch finishes; after a"
                                    + " restart some requests are answered again, with the same"
                                    + " kafka_correlationId and x-zerolayer-reply-id. exactly-once:"
                                    + " replies commit with the next checkpoint, so each waits up"
                                    + " to a checkpoint interval. The bill is exactly once either"
                                    + " way.");

    public static final ConfigOption<List<String>> REPLY_ALLOWED_TOPICS =
            ConfigOptions.key("zerolayer.replies.allowed-topics")
                    .stringType()
                    .asList()
                    .defaultValues("zerolayer.replies.*")
                    .withDescription(
                            "Topics a request may name in kafka_replyTopic, besides the responses"
                                + " topic: exact names, or prefixes ending in '*'. The job's own"
                                + " topics (requests, costs, cost summary, graphs, dead letters,"
                                + " control) are never allowed. A request naming another topic is"
                                + " dead-lettered with the reason.");

    public static final ConfigOption<String> COSTS_TOPIC =
            ConfigOptions.key("zerolayer.topics.costs")
                    .stringType()
                    .defaultValue("zerolayer.kernel-costs")
                    .withDescription("Topic of KernelCostRecords, keyed by record id.");

    public static final ConfigOption<String> COST_SUMMARY_TOPIC =
            ConfigOptions.key("zerolayer.topics.cost-summary")
                    .stringType()
                    .defaultValue("zerolayer.cost-summary")
                    .withDescription(
                            "Topic of CostSummary records: each tenant's costs per kernel kind per"
                                    + " event-time window, keyed tenant/kernel/windowStart.");

    public static final ConfigOption<Duration> COST_SUMMARY_WINDOW =
            ConfigOptions.key("zerolayer.cost-summary.window")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(1))
                    .withDescription("Event-time window of the cost summary.");

    public static final ConfigOption<Duration> COST_SUMMARY_OUT_OF_ORDERNESS =
            ConfigOptions.key("zerolayer.cost-summary.out-of-orderness")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(2))
                    .withDescription(
                            "How late a cost record may arrive behind the newest one and still"
                                    + " count in its window (the watermark's delay).");

    public static final ConfigOption<String> GRAPHS_TOPIC =
            ConfigOptions.key("zerolayer.topics.graphs")
                    .stringType()
                    .defaultValue("zerolayer.graphs")
                    .withDescription(
                            "Compacted topic of ExecutionGraph descriptors, keyed by graph id.");

    public static final ConfigOption<String> DEAD_LETTERS_TOPIC =
            ConfigOptions.key("zerolayer.topics.dead-letters")
                    .stringType()
                    .defaultValue("zerolayer.requests-dlt")
                    .withDescription(
                            "Undecodable request records, original bytes plus Spring's kafka_dlt-*"
                                    + " headers.");

    public static final ConfigOption<String> AUDIT_TOPIC =
            ConfigOptions.key("zerolayer.topics.audit")
                    .stringType()
                    .defaultValue("zerolayer.audit")
                    .withDescription(
                            "The tenants' audit chains: an entry per level-3 response, linked by"
                                    + " SHA-256 to the tenant's previous one, and anchors of each"
                                    + " chain's head; keyed by tenant id, never compacted or aged"
                                    + " out (docs/audit.md).");

    public static final ConfigOption<Integer> AUDIT_ANCHOR_EVERY =
            ConfigOptions.key("zerolayer.audit.anchor-every")
                    .intType()
                    .defaultValue(100)
                    .withDescription(
                            "An anchor record holds a tenant's chain head after this many"
                                    + " entries.");

    public static final ConfigOption<Duration> AUDIT_ANCHOR_INTERVAL =
            ConfigOptions.key("zerolayer.audit.anchor-interval")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(1))
                    .withDescription(
                            "And otherwise this long after the first entry it does not hold yet.");

    public static final ConfigOption<String> GROUP_ID =
            ConfigOptions.key("zerolayer.kafka.group-id")
                    .stringType()
                    .defaultValue("zerolayer")
                    .withDescription("Consumer group of the requests source.");

    public static final ConfigOption<String> TRANSACTIONAL_ID_PREFIX =
            ConfigOptions.key("zerolayer.kafka.transactional-id-prefix")
                    .stringType()
                    .defaultValue("zerolayer")
                    .withDescription(
                            "Prefix of the Kafka sinks' transactional ids; must be unique per job"
                                    + " on a cluster.");

    public static final ConfigOption<Duration> TRANSACTION_TIMEOUT =
            ConfigOptions.key("zerolayer.kafka.transaction-timeout")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(5))
                    .withDescription(
                            "Producer transaction timeout; must not exceed the broker's"
                                    + " transaction.max.timeout.ms (15 min by default).");

    public static final ConfigOption<Duration> CHECKPOINT_INTERVAL =
            ConfigOptions.key("zerolayer.checkpoint-interval")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(2))
                    .withDescription(
                            "How often the job's state and its transactional sinks commit: cost"
                                    + " records, summaries, graph descriptors and dead letters"
                                    + " (and exactly-once replies) become visible when the"
                                    + " checkpoint after them completes; a restart replays from"
                                    + " the last one.");

    public static final ConfigOption<Integer> GRAPH_CACHE_CAPACITY =
            ConfigOptions.key("zerolayer.graph-cache.capacity")
                    .intType()
                    .defaultValue(64)
                    .withDescription(
                            "Compiled graphs kept warm per task slot (least recently used"
                                    + " evicted).");

    public static final ConfigOption<String> HARDWARE_PROFILE =
            ConfigOptions.key("zerolayer.hardware-profile")
                    .stringType()
                    .defaultValue("auto")
                    .withDescription(
                            "auto detects each slot's device (CUDA through JavaCPP, else the CPU)"
                                + " and maps it onto hardware-profiles.yaml; a profile id overrides"
                                + " detection (custom mode, per TaskManager in mixed clusters).");

    public static final ConfigOption<Integer> INTRA_OP_THREADS =
            ConfigOptions.key("zerolayer.onnx.intra-op-threads")
                    .intType()
                    .defaultValue(1)
                    .withDescription(
                            "ONNX Runtime threads per session; one per slot keeps slots from"
                                    + " fighting for cores.");

    public static final ConfigOption<String> CONTRACTS_FILE =
            ConfigOptions.key("zerolayer.contracts.file")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Task contracts (tasks.yaml) to check requests against; the copy of"
                                    + " flink-conf/tasks.yaml built into the jar when unset.");

    public static final ConfigOption<SafeModePolicy.Policy> SAFE_MODE_POLICY =
            ConfigOptions.key("zerolayer.safe-mode.policy")
                    .enumType(SafeModePolicy.Policy.class)
                    .defaultValue(SafeModePolicy.Policy.DEGRADE)
                    .withDescription(
                            "What happens to prompts with abnormal structure: degrade (answer with"
                                    + " the SAFE graph, fidelity SAFE_MODE) or strict (reject).");

    public static final ConfigOption<Map<String, String>> TENANT_SAFE_MODE_POLICIES =
            ConfigOptions.key("zerolayer.safe-mode.tenant-policies")
                    .mapType()
                    .defaultValue(Map.of())
                    .withDescription(
                            "Per-tenant safe-mode policy, e.g. 'acme:strict,beta:degrade'; a"
                                    + " tenant's safe-mode in the tenant registry comes first.");

    public static final ConfigOption<MemorySize> MAX_RECORD_SIZE =
            ConfigOptions.key("zerolayer.kafka.max-record-size")
                    .memoryType()
                    .defaultValue(MemorySize.parse("64mb"))
                    .withDescription(
                            "Largest record the sinks may write (max.request.size): a dead letter"
                                + " carries the original bytes, so it must fit the largest request."
                                + " The topics' max.message.bytes must allow it too.");

    public static final ConfigOption<Double> REQUESTS_PER_SHARD =
            ConfigOptions.key("zerolayer.hot-graphs.requests-per-shard")
                    .doubleType()
                    .defaultValue(25.0)
                    .withDescription(
                            "A graph gets one more executor shard (slot) per this many requests/s,"
                                    + " up to one per slot; cold graphs stay on one slot.");

    public static final ConfigOption<Double> LOAD_PER_SHARD =
            ConfigOptions.key("zerolayer.hot-graphs.load-per-shard")
                    .doubleType()
                    .defaultValue(0.5)
                    .withDescription(
                            "A graph also gets one more executor shard per this much estimated"
                                    + " encoder load: its requests/s times the compiler's estimate"
                                    + " of one request's encode time alone on the slot hardware"
                                    + " (0.5: a slot busy half the time). Spreads graphs of few"
                                    + " but long requests, and a graph one slot could only just"
                                    + " carry, before their queues grow.");

    public static final ConfigOption<String> CONTROL_TOPIC =
            ConfigOptions.key("zerolayer.topics.control")
                    .stringType()
                    .defaultValue("zerolayer.control")
                    .withDescription(
                            "Control commands broadcast to every slot:"
                                + " {\"command\":\"clear-cache\"},"
                                + " {\"command\":\"reload-contracts\"[,\"contracts\":\"<tasks.yaml>\"]},"
                                + " {\"command\":\"reload-tenants\"}.");

    public static final ConfigOption<AuthMode> AUTH_MODE =
            ConfigOptions.key("zerolayer.auth.mode")
                    .enumType(AuthMode.class)
                    .defaultValue(AuthMode.HMAC)
                    .withDescription(
                            "hmac: every request must carry its tenant's HMAC-SHA256 signature"
                                    + " (docs/tenants.md); unsigned, forged, stale and replayed"
                                    + " records are dead-lettered, never executed or billed."
                                    + " none: the tenant is whatever a request says; only where"
                                    + " every writer of the requests topic is trusted, and logged"
                                    + " as a warning at start.");

    public static final ConfigOption<String> TENANTS_FILE =
            ConfigOptions.key("zerolayer.tenants.file")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "The tenant registry (YAML: each tenant's id and one or two hex"
                                    + " keys), read by every TaskManager; in Kubernetes a mounted"
                                    + " Secret. Required when zerolayer.auth.mode is hmac. Re-read"
                                    + " on {\"command\":\"reload-tenants\"}; a file that cannot"
                                    + " be used is logged and the tenants in force stay.");

    public static final ConfigOption<Duration> AUTH_MAX_CLOCK_SKEW =
            ConfigOptions.key("zerolayer.auth.max-clock-skew")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(5))
                    .withDescription(
                            "How far a request's signed timestamp may be from the time its record"
                                    + " reached Kafka (the broker's append time; the job's clock"
                                    + " when the topic keeps producer timestamps). A request id is"
                                    + " remembered for twice this, to refuse replays.");

    public static final ConfigOption<MemorySize> GRAPH_CACHE_SIZE =
            ConfigOptions.key("zerolayer.graph-cache.size-mb")
                    .memoryType()
                    .defaultValue(MemorySize.parse("64mb"))
                    .withDescription(
                            "Bytes of compiled graphs kept warm per slot (a graph weighs its"
                                + " descriptor; the ONNX sessions are shared and not counted).");

    public static final ConfigOption<MemorySize> EMBEDDING_CACHE_SIZE =
            ConfigOptions.key("zerolayer.embedding-cache.size")
                    .memoryType()
                    .defaultValue(MemorySize.parse("128mb"))
                    .withDescription(
                            "Bytes of chunk embeddings a TaskManager keeps on its JVM heap, shared"
                                    + " by its slots, so a sequence encoded before (a FAQ, a"
                                    + " licence, a contract's boilerplate) is not encoded again"
                                    + " and its request is billed a cache node instead. 0 turns"
                                    + " the cache off.");

    public static final ConfigOption<EmbeddingCache.Scope> EMBEDDING_CACHE_SCOPE =
            ConfigOptions.key("zerolayer.embedding-cache.scope")
                    .enumType(EmbeddingCache.Scope.class)
                    .defaultValue(EmbeddingCache.Scope.TENANT)
                    .withDescription(
                            "Whom a cached sequence serves: TENANT, the tenant that sent it;"
                                    + " SHARED, every tenant, which saves more but tells a"
                                    + " tenant, by a cache node on its bill, that someone sent"
                                    + " the same text before.");

    public static final ConfigOption<Boolean> EMBEDDING_CACHE_COMPLIANCE_LEVEL_3 =
            ConfigOptions.key("zerolayer.embedding-cache.compliance-level-3")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription(
                            "Whether requests at compliance level 3 read and fill the embedding"
                                    + " cache; by default every one of their sequences is"
                                    + " encoded.");

    public static final ConfigOption<Duration> GRAPH_CACHE_TTL =
            ConfigOptions.key("zerolayer.graph-cache.ttl")
                    .durationType()
                    .defaultValue(Duration.ofHours(1))
                    .withDescription("A warm graph not used for this long is dropped.");

    public static final ConfigOption<String> PRECOMPILE_FILE =
            ConfigOptions.key("zerolayer.precompile.file")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "precompile.yaml: structures each executor compiles when it opens (read"
                                    + " when the job is built; relative to the config folder).");

    public static final ConfigOption<String> HARDWARE_PROFILES_FILE =
            ConfigOptions.key("zerolayer.hardware-profiles.file")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Extra hardware profiles (e.g. written by zerolayer calibrate), added"
                                    + " to the built-in ones; read when the job is built.");

    public static final ConfigOption<String> MODELS_FILE =
            ConfigOptions.key("zerolayer.models.file")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "A model catalog of your own encoders (flink-conf/model-catalog.yaml's"
                                + " form: ONNX file, tokenizer.json, SHA-256, shape), added to the"
                                + " shipped ones; checked when the job is built and when each task"
                                + " opens, so the files must be at the same path on every"
                                + " TaskManager.");

    public static final ConfigOption<String> QUALITY_PROFILES_FILE =
            ConfigOptions.key("zerolayer.quality-profiles.file")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "A quality profile (zerolayer eval's output) the compiler chooses"
                                + " encoder tiers by, in place of the shipped"
                                + " flink-conf/quality-profiles.yaml; read when the job is built"
                                + " and when each task opens.");

    public static final ConfigOption<Integer> BATCH_SIZE =
            ConfigOptions.key("zerolayer.batch.size")
                    .intType()
                    .defaultValue(0)
                    .withDescription(
                            "Requests per micro-batch. 0 (default): each graph's own batch-size,"
                                    + " chosen by the compiler from the cost model; a positive"
                                    + " value replaces it for every graph.");

    public static final ConfigOption<Duration> BATCH_MAX_QUEUE_DELAY =
            ConfigOptions.key("zerolayer.batch.max-queue-delay")
                    .durationType()
                    .defaultValue(Duration.ofMillis(100))
                    .withDescription(
                            "Longest a request waits for its micro-batch to fill; the batch then"
                                    + " runs with what it holds. Each graph waits at most its"
                                    + " plan's queue-delay-ms (how long the compiler estimates a"
                                    + " request takes alone), and never longer than this.");

    public static final ConfigOption<Duration> BATCH_SLICE =
            ConfigOptions.key("zerolayer.batch.slice")
                    .durationType()
                    .defaultValue(Duration.ofMillis(50))
                    .withDescription(
                            "Most estimated time (the compiler's cost model) of one encoder run on"
                                    + " the inference thread. A long document's encoding is cut"
                                    + " into such slices, and between two of them the slot runs"
                                    + " the waiting batches due before it, so a short request"
                                    + " waits for a slice, not for the whole document. Slicing"
                                    + " never changes an answer. 0: batches run whole.");

    public static final ConfigOption<Long> BATCH_MAX_TOKENS =
            ConfigOptions.key("zerolayer.batch.max-tokens")
                    .longType()
                    .defaultValue(GraphExecutorFunction.DEFAULT_PASS_TOKENS)
                    .withDescription(
                            "Most padded tokens (longest sequence × sequences, as TEI counts"
                                    + " them) of one encoder pass on a slot's inference thread."
                                    + " When a graph's batch runs, the waiting batches of other"
                                    + " graphs on the same encoder session (model, precision,"
                                    + " device) join it, earliest due first, up to this many"
                                    + " tokens; their sequences are sorted by length and encoded"
                                    + " together, each graph decodes its own. 0: each graph's"
                                    + " batch runs by itself.");

    public static final ConfigOption<Long> SPLIT_MIN_TOKENS =
            ConfigOptions.key("zerolayer.split.min-tokens")
                    .longType()
                    .defaultValue(32_768L)
                    .withDescription(
                            "A request whose estimated encoder tokens (the compiler's estimate"
                                    + " from its structure) reach this many is split into parts"
                                    + " that run in several executor slots at once: one per half"
                                    + " this many tokens, at most one per slot, each on a slot of"
                                    + " its own. The text is cut at sentence ends; each part runs"
                                    + " the request's graph, and its decoder combines the parts'"
                                    + " results into the one reply. Strict (level 3) requests and"
                                    + " those the SAFE graph serves run whole. 0: nothing is"
                                    + " split.");

    public static final ConfigOption<Boolean> INFERENCE_THREAD =
            ConfigOptions.key("zerolayer.execution.inference-thread")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription(
                            "Run micro-batches on one inference thread per executor slot, so"
                                    + " checkpoint barriers, control commands and new requests"
                                    + " are handled while a batch encodes. A batch's requests stay"
                                    + " in checkpointed state until answered. false: batches run on"
                                    + " the Flink task thread and a barrier waits for the batch."
                                    + " Batch runs (zerolayer analyze) always use the task"
                                    + " thread.");

    public static final ConfigOption<Duration> MAIN_PATH_TIMEOUT =
            ConfigOptions.key("zerolayer.execution.main-path-timeout")
                    .durationType()
                    .defaultValue(Duration.ZERO)
                    .withDescription(
                            "Longest a batch may run on its main path before it is cancelled"
                                    + " (RunOptions.setTerminate) and run on the fallback. 0: no"
                                    + " limit but the requests' own deadlines.");

    public static final ConfigOption<Double> PRUNE_BELOW_FREE_MEMORY =
            ConfigOptions.key("zerolayer.pruning.free-memory-threshold")
                    .doubleType()
                    .defaultValue(0.15)
                    .withDescription(
                            "Optional graph nodes (label evidence, …) are skipped while the"
                                    + " slot's free memory share is below this: device memory on a"
                                    + " GPU; heap and system headroom on a CPU. Answers say"
                                    + " REDUCED with the pruned nodes.");

    public static final ConfigOption<ComplianceMode> COMPLIANCE_MODE =
            ConfigOptions.key("zerolayer.compliance.mode")
                    .enumType(ComplianceMode.class)
                    .defaultValue(ComplianceMode.STANDARD)
                    .withDescription(
                            "The compliance level of tenants the tenant registry gives none:"
                                    + " standard (1: cost records and graph ids), audited (2:"
                                    + " plus the audit attributes and redaction on every"
                                    + " response), or strict (3: plus each request alone, for"
                                    + " bit-identical answers, nothing pruned). A request's"
                                    + " 'compliance' attribute may ask for a higher level, never"
                                    + " a lower one.");

    public static final ConfigOption<Map<String, String>> TENANT_COMPLIANCE_MODES =
            ConfigOptions.key("zerolayer.compliance.tenant-modes")
                    .mapType()
                    .defaultValue(Map.of())
                    .withDescription(
                            "Compliance level per tenant, e.g. 'bank:strict,clinic:audited'; a"
                                    + " level in the tenant registry comes first.");

    public static final ConfigOption<List<Integer>> GPU_DEVICE_IDS =
            ConfigOptions.key("zerolayer.gpu.device-ids")
                    .intType()
                    .asList()
                    .defaultValues()
                    .withDescription(
                            "CUDA devices of a TaskManager its slots use, slot i taking"
                                    + " device-ids[i % n]; empty (default): every device detected,"
                                    + " round robin.");

    public static final ConfigOption<MemorySize> GPU_MEMORY_LIMIT =
            ConfigOptions.key("zerolayer.gpu.memory-limit")
                    .memoryType()
                    .defaultValue(MemorySize.ZERO)
                    .withDescription(
                            "The CUDA provider's arena limit per session (gpu_mem_limit); 0: no"
                                    + " limit.");

    public static final ConfigOption<ArenaExtendStrategy> GPU_ARENA_STRATEGY =
            ConfigOptions.key("zerolayer.gpu.arena-extend-strategy")
                    .enumType(ArenaExtendStrategy.class)
                    .defaultValue(ArenaExtendStrategy.NEXT_POWER_OF_TWO)
                    .withDescription(
                            "How the CUDA provider's arena grows: kNextPowerOfTwo or"
                                    + " kSameAsRequested.");

    public static final ConfigOption<String> PRICES_FILE =
            ConfigOptions.key("zerolayer.prices.file")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "prices.yaml: what kernel cost records are billed at (read when the"
                                    + " job is built; relative to the config folder). Default:"
                                    + " the built-in flink-conf/prices.yaml.");

    public static final ConfigOption<MemorySize> ANALYZE_MAX_FILE_SIZE =
            ConfigOptions.key("zerolayer.analyze.max-file-size")
                    .memoryType()
                    .defaultValue(MemorySize.parse("256mb"))
                    .withDescription(
                            "zerolayer analyze: larger files are not read but reported as error"
                                    + " rows (each file is read whole).");

    public static final ConfigOption<Integer> ANALYZE_PART_CHARS =
            ConfigOptions.key("zerolayer.analyze.part-chars")
                    .intType()
                    .defaultValue(40_000)
                    .withDescription(
                            "zerolayer analyze: documents with more text than this are split at"
                                    + " section boundaries into parts of at most this many"
                                    + " characters, run in parallel and combined per document"
                                    + " (--part-chars).");

    /** The reply-topic allow-list these settings describe. */
    public static io.zerolayer.operators.door.ReplyTopics replyTopics(
            org.apache.flink.configuration.Configuration conf) {
        return new io.zerolayer.operators.door.ReplyTopics(
                conf.get(RESPONSES_TOPIC),
                conf.get(REPLY_ALLOWED_TOPICS),
                List.of(
                        conf.get(REQUESTS_TOPIC),
                        conf.get(COSTS_TOPIC),
                        conf.get(COST_SUMMARY_TOPIC),
                        conf.get(GRAPHS_TOPIC),
                        conf.get(DEAD_LETTERS_TOPIC),
                        conf.get(CONTROL_TOPIC),
                        conf.get(AUDIT_TOPIC)));
    }

    public static io.zerolayer.operators.execution.ExecutionSettings execution(
            org.apache.flink.configuration.Configuration conf) {
        return new io.zerolayer.operators.execution.ExecutionSettings(
                conf.get(BATCH_SIZE),
                conf.get(BATCH_MAX_QUEUE_DELAY).toMillis(),
                conf.get(MAIN_PATH_TIMEOUT).toMillis(),
                conf.get(FaultInjection.FAIL_MAIN_EVERY_NTH_BATCH),
                conf.get(FaultInjection.FAIL_FALLBACK),
                conf.get(PRUNE_BELOW_FREE_MEMORY),
                conf.get(FaultInjection.INJECTED_FREE_MEMORY),
                conf.get(COMPLIANCE_MODE),
                tenantComplianceModes(conf),
                new io.zerolayer.operators.execution.ExecutionSettings.Gpu(
                        conf.get(GPU_DEVICE_IDS),
                        conf.get(GPU_MEMORY_LIMIT).getBytes(),
                        conf.get(GPU_ARENA_STRATEGY)));
    }

    /** The compliance mode of each tenant named in {@link #TENANT_COMPLIANCE_MODES}. */
    static Map<String, ComplianceMode> tenantComplianceModes(
            org.apache.flink.configuration.Configuration conf) {
        Map<String, ComplianceMode> modes = new java.util.LinkedHashMap<>();
        conf.get(TENANT_COMPLIANCE_MODES)
                .forEach(
                        (tenant, mode) -> {
                            try {
                                modes.put(tenant, ComplianceMode.parse(mode));
                            } catch (IllegalArgumentException e) {
                                throw new IllegalArgumentException(
                                        TENANT_COMPLIANCE_MODES.key()
                                                + ", tenant '"
                                                + tenant
                                                + "': "
                                                + e.getMessage(),
                                        e);
                            }
                        });
        return modes;
    }
}
