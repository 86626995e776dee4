package io.zerolayer.jobs;

import io.zerolayer.operators.execution.EmbeddingCache;
import io.zerolayer.operators.flink.GraphExecutorFunction;
import java.time.Duration;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;

/**
 * How executor slots run requests: checkpoints, warm graphs and caches, micro-batches, splitting,
 * sharding and memory pressure. Part of {@link PipelineOptions}.
 */
public final class ExecutorOptions {
    private ExecutorOptions() {}

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

    public static final ConfigOption<MemorySize> GRAPH_CACHE_SIZE =
            ConfigOptions.key("zerolayer.graph-cache.size-mb")
                    .memoryType()
                    .defaultValue(MemorySize.parse("64mb"))
                    .withDescription(
                            "Bytes of compiled graphs kept warm per slot (a graph weighs its"
                                + " descriptor; the ONNX sessions are shared and not counted).");

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
                                    + " when the job is built; relative to the config folder)."
                                    + " Default: the built-in flink-conf/precompile.yaml; none"
                                    + " compiles nothing ahead.");

    /** The {@link #PRECOMPILE_FILE} value that precompiles nothing. */
    public static final String NO_PRECOMPILE = "none";

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
}
