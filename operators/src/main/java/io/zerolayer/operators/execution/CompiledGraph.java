package io.zerolayer.operators.execution;

import io.zerolayer.gpu.EncoderModel;
import io.zerolayer.gpu.SentenceEncoder;
import io.zerolayer.operators.compiler.EncoderRuns;
import io.zerolayer.operators.compiler.ExecutionPlan;
import io.zerolayer.operators.compiler.PlanNode;
import io.zerolayer.operators.costs.PriceSheet;
import io.zerolayer.operators.prompt.ParsedPrompt;
import io.zerolayer.operators.structure.DocumentContent;
import io.zerolayer.operators.tasks.DocumentTask;
import io.zerolayer.operators.tasks.TaskInput;
import io.zerolayer.operators.tasks.TaskResult;
import java.util.ArrayList;
import java.util.List;

/**
 * An {@link ExecutionPlan} bound to this slot's resources: its encoder session, its chunker and its
 * task decoder. Built once per graph id per slot and reused for every request of every structure
 * that compiles to the plan; executing it records one {@link NodeRun} per node.
 */
public final class CompiledGraph {
    private final ExecutionPlan plan;
    private final SentenceEncoder encoder;
    private final Chunker chunker;
    private final DocumentTask task;
    private final PlanNode encodeNode;
    private final PlanNode poolNode;
    private final PlanNode decodeNode;

    /** The plan's head node, or null: the head it names is the plan's {@code head()}. */
    private final PlanNode headNode;

    public CompiledGraph(ExecutionPlan plan, EncoderPool encoders) {
        this(plan, encoders, BuiltInPrices.SHEET);
    }

    /** The built-in price sheet, parsed on first use. */
    private static final class BuiltInPrices {
        static final PriceSheet SHEET = PriceSheet.builtIn();
    }

    /**
     * @param prices the price sheet its cost records are billed at, for the plan's hardware profile
     */
    public CompiledGraph(ExecutionPlan plan, EncoderPool encoders, PriceSheet prices) {
        this(plan, encoders, prices, null);
    }

    /**
     * @param embeddings the TaskManager's cache of chunk embeddings, which requests whose {@link
     *     RunMode#cacheScope} allows read and fill; null for none
     */
    public CompiledGraph(
            ExecutionPlan plan,
            EncoderPool encoders,
            PriceSheet prices,
            EmbeddingCache embeddings) {
        this.prices = prices;
        this.embeddings = embeddings;
        String hardware = plan.identity().hardwareProfile();
        this.priceProfile =
                hardware.contains("@") ? hardware.substring(0, hardware.indexOf('@')) : hardware;
        this.plan = plan;
        this.encodeNode = plan.node("encode");
        this.poolNode = plan.node("pool");
        this.decodeNode = plan.node("decode");
        this.encoder =
                encoders.get(
                        EncoderModel.byId(encodeNode.model()),
                        encodeNode.params().getOrDefault("device", "cpu"));
        PlanNode chunk = plan.node("chunk");
        this.chunker =
                new Chunker(
                        chunk.params().get("strategy"),
                        Integer.parseInt(chunk.params().get("window")),
                        Integer.parseInt(chunk.params().get("stride")));
        this.headNode = plan.head() == null ? null : plan.node("head");
        this.task =
                headNode == null
                        ? DocumentTask.forName(decodeNode.params().get("decoder"))
                        : DocumentTask.headClassification(
                                Double.parseDouble(
                                        headNode.params().getOrDefault("min-probability", "NaN")));
        io.zerolayer.gpu.CublasSimilarity cublas =
                "cublas".equals(decodeNode.params().get("similarity"))
                        ? encoders.similarity()
                        : null;
        this.gram = cublas == null ? null : cublas::gram;
        this.postNodes = new PostDecodeChain(plan, decodeNode);
        this.fallback =
                plan.fallbackNodes().isEmpty()
                        ? null
                        : new CompiledGraph(plan.fallback(), encoders, prices, embeddings);
    }

    private final CompiledGraph fallback;
    private final EmbeddingCache embeddings;
    private final PriceSheet prices;
    private final String priceProfile;

    /** The price sheet this graph's runs are billed at. */
    public PriceSheet prices() {
        return prices;
    }

    /** The similarity products on cuBLAS where the plan chose so and the slot can; else null. */
    private final java.util.function.UnaryOperator<float[][]> gram;

    /** The nodes after decode: evidence, redact, audit. */
    private final PostDecodeChain postNodes;

    /**
     * How a request runs: whether optional nodes are pruned (memory pressure), which compliance
     * nodes are on (all of them in strict compliance mode), in which scope it shares encoded
     * sequences ({@link EmbeddingCache.Settings#scopeOf}: its tenant, {@code ""} for every tenant;
     * null: it neither reads nor fills the cache), and whether it is a part of a split request,
     * decoded to JSON whatever the plan's output format, for its parts' results to be combined.
     */
    public record RunMode(
            boolean pruneOptional,
            java.util.Set<String> compliance,
            String cacheScope,
            boolean part) {
        public static final RunMode STANDARD = new RunMode(false, java.util.Set.of());

        public RunMode {
            compliance = java.util.Set.copyOf(compliance);
        }

        public RunMode(boolean pruneOptional, java.util.Set<String> compliance, String cacheScope) {
            this(pruneOptional, compliance, cacheScope, false);
        }

        /** A mode that does not use the embedding cache. */
        public RunMode(boolean pruneOptional, java.util.Set<String> compliance) {
            this(pruneOptional, compliance, null);
        }

        /** This mode for a part of a split request. */
        public RunMode asPart() {
            return new RunMode(pruneOptional, compliance, cacheScope, true);
        }
    }

    /** The precompiled fallback path, bound to its own sessions; null for a fallback itself. */
    public CompiledGraph fallback() {
        return fallback;
    }

    private final NodeTimings timings = new NodeTimings();
    private final java.time.Instant compiledAt = java.time.Instant.now();

    /** When this slot compiled the graph. */
    public java.time.Instant compiledAt() {
        return compiledAt;
    }

    /** Most structures a graph remembers having run, for its descriptor. */
    static final int STRUCTURES_KEPT = 64;

    private final java.util.Set<String> structures = new java.util.LinkedHashSet<>();

    /**
     * Notes that a request of structure {@code signature} runs on this graph; whether it is one the
     * graph had not run yet (and is kept: at most {@value #STRUCTURES_KEPT}), so its descriptor
     * changed.
     */
    public synchronized boolean noteStructure(String signature) {
        return structures.size() < STRUCTURES_KEPT && structures.add(signature);
    }

    /** The structures this graph has run in this slot, first seen first. */
    public synchronized List<String> structures() {
        return List.copyOf(structures);
    }

    /**
     * The descriptor of this graph as this slot knows it: the slot's device, the nodes' measured
     * p50s and the structures it has run.
     */
    public io.zerolayer.schemas.ExecutionGraph descriptor(String hardwareReport) {
        return plan.toDescriptor(
                compiledAt, hardwareReport, timings.p50Micros(), timings.runs(), structures());
    }

    /** Measured node durations of this graph in this slot. */
    public NodeTimings timings() {
        return timings;
    }

    public ExecutionPlan plan() {
        return plan;
    }

    public String device() {
        return encoder.device();
    }

    /**
     * Runs the graph on one prompt of this graph's structure.
     *
     * @throws IllegalArgumentException if the prompt's scopes are not the ones this graph was
     *     compiled for (a different structure reached this graph)
     */
    public GraphRun execute(ParsedPrompt prompt) {
        return execute(prompt.source(), DocumentContent.of(prompt));
    }

    /**
     * Runs the graph on content already extracted from {@code source} (the SAFE graph passes the
     * prompt as plain text).
     */
    public GraphRun execute(String source, DocumentContent content) {
        BatchOutcome outcome = executeBatch(List.of(new BatchInput(source, content))).get(0);
        if (outcome.error() != null) {
            throw outcome.error();
        }
        return outcome.run();
    }

    /** One request of a micro-batch: its source text, the content extracted from it, its mode. */
    public record BatchInput(String source, DocumentContent content, RunMode mode) {
        public BatchInput(String source, DocumentContent content) {
            this(source, content, RunMode.STANDARD);
        }

        public static BatchInput of(ParsedPrompt prompt) {
            return of(prompt, RunMode.STANDARD);
        }

        public static BatchInput of(ParsedPrompt prompt, RunMode mode) {
            return new BatchInput(prompt.source(), DocumentContent.of(prompt), mode);
        }
    }

    /**
     * What a request of a batch came to: its run, or the error that concerns it alone (its document
     * has no text, its scopes do not match).
     */
    public record BatchOutcome(GraphRun run, RuntimeException error) {}

    /** The encoder model this graph runs (its fallback may run another). */
    public EncoderModel model() {
        return encoder.model();
    }

    /**
     * The token sequences (content ids, without [CLS]/[SEP]) a run of {@code input} would encode:
     * its chunks, then its queries — tokenized and chunked exactly as {@link #executeBatch} does,
     * but not encoded. Benchmarks replay them on the bare encoder as the hardware ceiling.
     *
     * @throws IllegalArgumentException as {@link #execute(ParsedPrompt)} would
     */
    public List<long[]> encoderSequences(BatchInput input) {
        return List.copyOf(PreparedRequest.prepare(0, input, chunker, encoder, task).sequences);
    }

    /**
     * Runs the graph on a micro-batch of requests: each is tokenized and chunked by itself, then
     * the sequences of all of them are sorted by length and encoded together in runs of at most
     * {@value EncoderRuns#MAX_SEQUENCES_PER_RUN}, cut where padding would cost more than another
     * run ({@link EncoderRuns}), pooled, and decoded per request. The encode and pool time of the
     * batch is shared among its requests by their tokens, so each request still gets one {@link
     * NodeRun} per node.
     *
     * @return one outcome per input, in order
     * @throws io.zerolayer.gpu.EncoderException when the encoder fails: that concerns the whole
     *     batch, which the caller may run again on the fallback
     */
    public List<BatchOutcome> executeBatch(List<BatchInput> inputs) {
        return executeBatch(inputs, Long.MAX_VALUE, SliceBoundary.NONE);
    }

    /**
     * {@link #executeBatch(List)}, with the encoder cancelled once {@link System#nanoTime()} passes
     * {@code deadlineNanos} ({@code Long.MAX_VALUE}: no limit), and other work let in at {@code
     * boundary} before, between and after its encoder runs, each run kept within the boundary's
     * slice of estimated time (a pause's time moves the deadline by as much). The runs are the same
     * whether or not other work ran between them, so the answers are too.
     */
    public List<BatchOutcome> executeBatch(
            List<BatchInput> inputs, long deadlineNanos, SliceBoundary boundary) {
        return executeTogether(List.of(new Part(this, inputs)), deadlineNanos, boundary).get(0);
    }

    /** Requests of one graph in a pass that may hold several graphs. */
    public record Part(CompiledGraph graph, List<BatchInput> inputs) {
        public Part {
            inputs = List.copyOf(inputs);
        }
    }

    /**
     * What graphs may run in one pass with this one: those of an equal group share its encoder
     * session (model, precision, device: one per slot), its embedding cache and its price sheet and
     * profile.
     */
    public EncoderGroup encoderGroup() {
        return new EncoderGroup(encoder, embeddings, prices, priceProfile);
    }

    /** What graphs that run in one pass share; sessions, caches and sheets by identity. */
    public record EncoderGroup(
            SentenceEncoder encoder,
            EmbeddingCache embeddings,
            PriceSheet prices,
            String priceProfile) {}

    /**
     * Runs the requests of several graphs of one {@link #encoderGroup} in one pass, as {@link
     * #executeBatch(List, long, SliceBoundary)} runs one graph's: each request is tokenized and
     * chunked by its own graph, the sequences of all of them are sorted by length and encoded
     * together in the runs {@link EncoderRuns} cuts (each kept within the slice of the part whose
     * plan allows the fewest tokens), and each request is decoded by its own graph. The encode and
     * pool time and bill of the whole pass are shared among all its requests by their tokens, so
     * the shares add up to the pass's exactly, whichever graph each request belongs to.
     *
     * @return one outcome per input, per part, in order
     * @throws IllegalArgumentException when the parts are not all of one encoder group
     * @throws io.zerolayer.gpu.EncoderException when the encoder fails: that concerns the whole
     *     pass
     */
    public static List<List<BatchOutcome>> executeTogether(
            List<Part> parts, long deadlineNanos, SliceBoundary boundary) {
        return EncoderPass.run(parts, deadlineNanos, boundary);
    }

    Chunker chunker() {
        return chunker;
    }

    DocumentTask task() {
        return task;
    }

    SentenceEncoder encoder() {
        return encoder;
    }

    /** The id of the plan's pool node, which a pass's pool records of this graph carry. */
    String poolNodeId() {
        return poolNode.nodeId();
    }

    /** Records the totals of the last pass this graph's requests were in. */
    void lastBatch(BatchTotals totals) {
        lastBatch = totals;
    }

    /** What the last batch's shared nodes did in all: sequences, real tokens, time. */
    public record BatchTotals(int sequences, long tokens, long encodeNanos, long poolNanos) {}

    private BatchTotals lastBatch = new BatchTotals(0, 0, 0, 0);

    /**
     * The last pass's totals, which its requests' encode and pool records add up to (those of every
     * graph in it, when it ran with others).
     */
    public BatchTotals lastBatch() {
        return lastBatch;
    }

    /** Sequences the last batch encoded, for metrics. */
    public int lastBatchSequences() {
        return lastBatch.sequences();
    }

    /** decode/&lt;task&gt; for one request. */
    GraphRun decode(PreparedRequest p) {
        String outputFormat = p.input.mode().part() ? "json" : plan.outputFormat();
        NodeTimer timer = new NodeTimer();
        int chunks = p.chunks.size();
        float[][] chunkVectors = java.util.Arrays.copyOfRange(p.vectors, 0, chunks);
        float[][] queryVectors = java.util.Arrays.copyOfRange(p.vectors, chunks, p.vectors.length);
        io.zerolayer.operators.tasks.HeadScores head = null;
        if (headNode != null) {
            head = io.zerolayer.operators.tasks.HeadScores.of(plan.head(), chunkVectors);
            p.runs.add(
                    timer.run(
                            headNode.nodeId(),
                            "head",
                            null,
                            chunks,
                            null,
                            plan.head().flops(chunks),
                            null));
            timer.restart();
        }
        TaskResult result =
                task.decode(
                        new TaskInput(
                                p.input.content(),
                                p.chunks,
                                chunkVectors,
                                p.queries,
                                queryVectors,
                                encoder.model().id(),
                                gram,
                                head),
                        outputFormat);
        p.runs.add(
                timer.run(decodeNode.nodeId(), "decode", null, chunks, null, result.flops(), null));
        TaskInput taskInput =
                new TaskInput(
                        p.input.content(),
                        p.chunks,
                        chunkVectors,
                        p.queries,
                        queryVectors,
                        encoder.model().id(),
                        null,
                        head);
        PostDecodeChain.Result post =
                postNodes.run(
                        taskInput,
                        result.output(),
                        outputFormat,
                        p.input.mode(),
                        new io.zerolayer.operators.tasks.PostDecodeNode.Context(
                                plan.graphId(), p.input.source(), encoder.checksum()),
                        chunks,
                        p.runs);
        List<NodeRun> billed = new ArrayList<>(p.runs.size());
        for (NodeRun r : p.runs) {
            boolean batchNode = r.kind().equals("encode") || r.kind().equals("pool");
            billed.add(
                    batchNode
                            ? r
                            : r.billed(
                                    prices.bill(
                                            priceProfile,
                                            "fp32",
                                            r.flops(),
                                            r.memoryBytes(),
                                            r.pcieBytes(),
                                            r.durationNanos())));
        }
        return new GraphRun(
                post.output(),
                List.copyOf(billed),
                post.pruned(),
                post.annotations(),
                result.note());
    }
}
