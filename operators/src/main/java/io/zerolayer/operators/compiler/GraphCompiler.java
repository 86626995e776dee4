package io.zerolayer.operators.compiler;

import io.zerolayer.gpu.EncoderModel;
import io.zerolayer.operators.heads.ClassifierHead;
import io.zerolayer.operators.heads.TaskHeads;
import io.zerolayer.operators.prompt.TagNode;
import io.zerolayer.operators.quality.QualityFloor;
import io.zerolayer.operators.quality.QualityProfile;
import io.zerolayer.operators.structure.ClassifiedPrompt;
import io.zerolayer.operators.structure.DocumentContent;
import io.zerolayer.operators.structure.StructureSignature;
import io.zerolayer.schemas.Fidelity;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns a classified prompt's structure into a static execution graph:
 *
 * <pre>
 * tokenize → chunk → encode → pool → decode/&lt;task&gt; → evidence → redact → audit
 * </pre>
 *
 * A plan is compiled from the structure's {@link PlanShape} — task, decoder, output format, the
 * document's size bucket and its queries — never from section names or how the text is split, so
 * the many structures of one shape share one plan, and its id (the hash of the plan, {@link
 * ExecutionPlan#canonicalForm}) is their graph id. Every decision here uses only the shape and the
 * slot's hardware profile, so the graph is a function of the graph id. The decisions come from the
 * {@link CostEstimator}'s figures and are recorded, with their reasons, in the encode node's
 * params: the device (CUDA where the profile is a GPU's and ONNX Runtime has the provider), the
 * encoder tier ({@link TierChoice}: the cheapest model × precision of the catalog whose measured
 * quality for the task meets the structure's floor; every candidate is listed with its quality,
 * estimate and verdict), the micro-batch size and the padding. Every node carries its estimated
 * time. The fallback path runs the best cheaper tier on the CPU.
 *
 * <p>The SAFE graph ({@link #compileSafe(int)}) serves abnormal structures: the prompt as plain
 * text, summarized extractively with the cheapest encoder (MiniLM int8). It is compiled like any
 * other graph and has its own id; its shape is named {@value #SAFE_SIGNATURE}.
 */
public final class GraphCompiler {
    /**
     * Content tokens per window; with [CLS] and [SEP] a window is 128, MiniLM's training length.
     */
    public static final int WINDOW_TOKENS = 126;

    /** Windows advance by this many tokens, so neighbours overlap by a quarter. */
    public static final int WINDOW_STRIDE = 96;

    /**
     * Where no quality profile measures a tier for the task, int8 (cosine ≈ 0.99 to fp32) is chosen
     * when it saves at least this much encoding time a request; the runtime router's rule too.
     */
    public static final long INT8_MIN_SAVING_MICROS = 50_000;

    /**
     * What an {@code embed} plan's tier is chosen for, whatever the document's size: vectors of
     * different models cannot be compared, so every embedding of one floor comes from one model.
     */
    static final StructureWorkload EMBED_REFERENCE =
            new StructureWorkload(Map.of("document", 512.0), 1, 0, "windows");

    /**
     * How a plan with a head chunks its document, and {@code ExampleEmbedder} its examples: whole
     * passages of up to a window read better than the sentences averaged (measured by {@code
     * zerolayer eval --shots}, docs/quality.md).
     */
    public static final String HEAD_STRATEGY = "windows";

    /** Tags whose items are encoded with the document as queries. */
    private static final Set<String> QUERY_TAGS = Set.of("question", "labels", "fields");

    /** Signature of the SAFE graph; no prompt's signature can be equal to it (it is not a tag). */
    public static final String SAFE_SIGNATURE = "#safe-mode";

    /**
     * Decoders that read sentences: the units a summary picks and labels or fields are weighed
     * over.
     */
    private static final Set<String> SENTENCE_DECODERS = Set.of("summarize", "classify", "extract");

    private final GraphIdentity identity;
    private final CostEstimator estimator;

    /** How many plans this compiler compiled (not found among those it keeps). */
    public long plansCompiled() {
        return plansCompiled.get();
    }

    private final java.util.concurrent.atomic.AtomicLong plansCompiled =
            new java.util.concurrent.atomic.AtomicLong();

    /** A compiler for no particular slot: plans use {@link CostEstimator#nominal()}. */
    public GraphCompiler(GraphIdentity identity) {
        this(identity, CostEstimator.nominal());
    }

    /**
     * @param estimator the cost model of the slot's hardware, which the plan's choices come from
     */
    public GraphCompiler(GraphIdentity identity, CostEstimator estimator) {
        this(identity, estimator, QualityProfile.active());
    }

    /**
     * @param estimator the cost model of the slot's hardware, which the plan's choices come from
     * @param quality the measured quality of the tiers, which the tier is chosen by
     */
    public GraphCompiler(GraphIdentity identity, CostEstimator estimator, QualityProfile quality) {
        this(identity, estimator, quality, null);
    }

    /**
     * @param heads the heads of the tasks with labelled examples, which their plans classify with
     *     and choose their tier by; null to classify every task zero-shot
     */
    public GraphCompiler(
            GraphIdentity identity,
            CostEstimator estimator,
            QualityProfile quality,
            TaskHeads heads) {
        this.identity = identity;
        this.estimator = estimator;
        this.quality = quality;
        this.heads = heads;
    }

    private final QualityProfile quality;
    private final TaskHeads heads;

    /** Whether this compiler fits heads for tasks with examples. */
    public boolean fitsHeads() {
        return heads != null;
    }

    public GraphIdentity identity() {
        return identity;
    }

    /** The id of a prompt's structure (what it looked like), for this compiler's identity. */
    public String structureId(ClassifiedPrompt prompt) {
        return structureId(prompt.signature());
    }

    /** The id of a structure (what it looked like), for this compiler's identity. */
    public String structureId(CompilableStructure structure) {
        return structureId(structure.signature());
    }

    /** A signature's id, hashed once per signature and kept, as plans are. */
    private String structureId(io.zerolayer.operators.structure.StructureSignature signature) {
        String canonical = signature.canonical();
        String known = structureIds.get(canonical);
        if (known != null) {
            return known;
        }
        if (structureIds.size() >= REMEMBERED_PLANS) {
            structureIds.clear();
        }
        String id = identity.structureId(signature);
        structureIds.put(canonical, id);
        return id;
    }

    private final Map<String, String> structureIds = new java.util.concurrent.ConcurrentHashMap<>();

    /** The graph id of a prompt that compiles: its plan's. */
    public String graphId(ClassifiedPrompt prompt) {
        return compile(prompt).graphId();
    }

    /** The graph id of a structure: its plan's. */
    public String graphId(CompilableStructure structure) {
        return compile(structure).graphId();
    }

    /** The graph id of the SAFE graph for texts of at most {@code maxChars}. */
    public String safeGraphId(int maxChars) {
        return compileSafe(maxChars).graphId();
    }

    public ExecutionPlan compile(ClassifiedPrompt prompt) {
        return compile(CompilableStructure.of(prompt));
    }

    /** The plan of a structure: that of its {@link PlanShape}. */
    public ExecutionPlan compile(CompilableStructure structure) {
        return compile(PlanShape.of(structure));
    }

    /**
     * The plan of a shape, compiled once per compiler: a plan follows from its shape and this
     * compiler's identity and cost model alone, so every request of a known shape finds its graph
     * id without compiling. At most {@value #REMEMBERED_PLANS} shapes are kept (tasks × output
     * formats × size buckets × query counts is far fewer); beyond that the memory starts over.
     */
    public ExecutionPlan compile(PlanShape shape) {
        ExecutionPlan known = plans.get(shape);
        if (known != null) {
            return known;
        }
        plansCompiled.incrementAndGet();
        ExecutionPlan plan =
                plan(
                        shape.describe(),
                        shape.task(),
                        shape.decoder(),
                        shape.outputFormat(),
                        Fidelity.FULL,
                        shape.representative(),
                        new Tier(shape.quality(), shape.exact(), null, null));
        if (plans.size() >= REMEMBERED_PLANS) {
            plans.clear();
        }
        plans.put(shape, plan);
        return plan;
    }

    /** Shapes whose plans a compiler keeps. */
    static final int REMEMBERED_PLANS = 1024;

    private final Map<PlanShape, ExecutionPlan> plans =
            new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * What the compiler estimates of one request of {@code structure} itself (not of its shape's
     * representative): its encode time alone on this compiler's hardware, whether its plan batches,
     * and its padded encoder tokens. What deadlines, fair shares and token quotas count.
     */
    public RequestEstimate estimate(CompilableStructure structure) {
        ExecutionPlan plan = compile(structure);
        CostEstimator.EncodeEstimate alone =
                estimator.encode(
                        EncoderModel.byId(plan.node("encode").model()), structure.workload(), 1);
        return new RequestEstimate(
                Math.max(1, Math.round(alone.micros() / 1e3)),
                plan.batchSize() > 1,
                (long) alone.sequences() * alone.seqLen());
    }

    /** The estimate of one request of the SAFE graph: its plan's, of the longest text it takes. */
    public RequestEstimate estimateSafe(int maxChars) {
        ExecutionPlan plan = compileSafe(maxChars);
        return new RequestEstimate(
                plan.encodeMillisAlone(), plan.batchSize() > 1, plan.encoderTokensPerRequest());
    }

    /**
     * One request's estimate.
     *
     * @param encodeMillisAlone its encode time alone, at least 1 ms
     * @param batches whether its plan runs it with others (batch size above 1)
     * @param encoderTokens its padded encoder tokens, what a tenant's token quota counts
     */
    public record RequestEstimate(long encodeMillisAlone, boolean batches, long encoderTokens) {}

    /**
     * What one request of the prompt's structure brings to its graph, from structure alone: the
     * features the encoder precision, batch size and cost estimates are chosen from.
     */
    public static StructureWorkload workload(ClassifiedPrompt prompt) {
        return workload(prompt, DocumentContent.of(prompt.parsed()));
    }

    /** The workload of a prompt whose content ({@link DocumentContent#of}) is already read. */
    static StructureWorkload workload(ClassifiedPrompt prompt, DocumentContent content) {
        Map<String, Double> scopeTokens = new LinkedHashMap<>();
        content.scopes()
                .forEach(
                        (scope, runs) ->
                                scopeTokens.put(
                                        scope,
                                        runs.stream()
                                                .mapToDouble(
                                                        run ->
                                                                StructureWorkload
                                                                                .representativeChars(
                                                                                        run
                                                                                                .sizeBucket())
                                                                        / StructureWorkload
                                                                                .CHARS_PER_TOKEN)
                                                .sum()));
        return new StructureWorkload(
                scopeTokens,
                content.scopes().values().stream().mapToInt(List::size).sum(),
                querySequences(prompt),
                strategyOf(prompt.contract().decoder()));
    }

    /** Question, label and field sequences, from the size buckets of their tags' text. */
    private static int querySequences(ClassifiedPrompt prompt) {
        int queries = 0;
        for (String tag : QUERY_TAGS) {
            TagNode node = prompt.parsed().firstTag(tag);
            if (node != null) {
                queries +=
                        tag.equals("question")
                                ? 1
                                : StructureWorkload.representativeQueries(
                                        StructureSignature.sizeBucket(
                                                node.text().strip().length()));
            }
        }
        return queries;
    }

    /** The encoder a precision choice ({@code int8} or {@code fp32}) runs on. */
    public static EncoderModel encoderOf(CostEstimator.Choice precision) {
        return precision.value().equals("int8")
                ? EncoderModel.MINILM_L6_V2_INT8
                : EncoderModel.MINILM_L6_V2_FP32;
    }

    /** How a decoder's documents are chunked: {@code sentences} or {@code windows}. */
    public static String strategyOf(String decoder) {
        return SENTENCE_DECODERS.contains(decoder) ? "sentences" : "windows";
    }

    /**
     * The SAFE graph: one body scope of plain text (at most {@code maxChars}), extractive summary,
     * int8, text output.
     */
    public ExecutionPlan compileSafe(int maxChars) {
        return safePlans.computeIfAbsent(maxChars, this::planSafe);
    }

    private final Map<Integer, ExecutionPlan> safePlans =
            new java.util.concurrent.ConcurrentHashMap<>();

    private ExecutionPlan planSafe(int maxChars) {
        return plan(
                SAFE_SIGNATURE,
                "summarize",
                "summarize",
                "text",
                Fidelity.SAFE_MODE,
                new StructureWorkload(
                        Map.of("body", maxChars / StructureWorkload.CHARS_PER_TOKEN),
                        1,
                        0,
                        strategyOf("summarize")),
                new Tier(
                        QualityFloor.FAST,
                        false,
                        EncoderModel.MINILM_L6_V2_INT8,
                        "SAFE graph: the cheapest encoder for text whose structure is not"
                                + " trusted"));
    }

    private ExecutionPlan plan(
            String shape,
            String task,
            String decoder,
            String outputFormat,
            Fidelity fidelity,
            StructureWorkload workload,
            Tier tier) {
        CostEstimator.Choice device = estimator.device();
        boolean withHead = heads != null && decoder.equals("classify") && heads.has(task);
        TierQuality tierQuality =
                withHead ? TierQuality.of(heads, task) : TierQuality.of(quality, decoder);
        // each tier's estimate for one request, computed once for the choice and the fallback
        Map<EncoderModel, Double> aloneMicros = new java.util.HashMap<>();
        java.util.function.ToDoubleFunction<EncoderModel> alone =
                m -> aloneMicros.computeIfAbsent(m, k -> estimator.encode(k, workload, 1).micros());
        EncoderModel model;
        String tierReason;
        TierChoice tiers = null;
        if (tier.forced() != null) {
            model = tier.forced();
            tierReason = tier.forcedReason();
        } else {
            StructureWorkload costed = decoder.equals("embed") ? EMBED_REFERENCE : workload;
            tiers =
                    TierChoice.choose(
                            EncoderModel.values(),
                            tierQuality,
                            decoder,
                            tier.floor(),
                            tier.exact(),
                            device.value().equals("cuda"),
                            costed == workload
                                    ? alone
                                    : m -> estimator.encode(m, costed, 1).micros());
            if (tiers != null) {
                model = tiers.chosen();
                tierReason = tiers.reason();
            } else { // no tier measured for the task runs here: the fidelity and saving rule
                CostEstimator.Choice precision =
                        estimator.precision(decoder, workload, INT8_MIN_SAVING_MICROS);
                model = encoderOf(precision);
                tierReason = precision.reason() + " (no measured tier)";
            }
        }
        double documentTokens = workload.documentTokens();
        List<PlanNode> nodes = new ArrayList<>();
        Map<String, String> tokenize = new LinkedHashMap<>();
        tokenize.putAll(
                estimator.host(
                        "tokenize",
                        documentTokens,
                        workload.textRuns() + workload.querySequences()));
        nodes.add(new PlanNode("tokenize", "tokenize", null, List.of(), tokenize));
        String strategy = withHead ? HEAD_STRATEGY : workload.strategy();
        String chunkReason =
                withHead
                        ? "a head reads whole passages, as its examples were embedded"
                        : strategy.equals("sentences")
                                ? "decoder '" + decoder + "' picks or weighs sentences"
                                : "decoder '" + decoder + "' wants context: overlapping windows";
        // one node chunks every scope alike: section names are content, never part of a plan
        Map<String, String> chunk = new LinkedHashMap<>();
        chunk.put("strategy", strategy);
        chunk.put("window", String.valueOf(WINDOW_TOKENS));
        chunk.put("stride", String.valueOf(WINDOW_STRIDE));
        chunk.put("reason", chunkReason);
        chunk.putAll(estimator.host("chunk", documentTokens, 1));
        nodes.add(new PlanNode("chunk", "chunk", null, List.of("tokenize"), chunk));
        CostEstimator.Choice batch = estimator.batchSize(model, workload);
        CostEstimator.Choice padding = estimator.padding();
        Map<String, String> encode = new LinkedHashMap<>();
        encode.put("precision", model.precision());
        encode.put("reason", tierReason);
        encode.put("quality-floor", tier.floor() + (tier.exact() ? ", exact" : ""));
        if (tiers != null) {
            encode.put("tier.candidates", tiers.describeCandidates());
        }
        encode.put("device", device.value());
        encode.put("device.reason", device.reason());
        encode.put("batch-size", batch.value());
        encode.put("batch-size.reason", batch.reason());
        CostEstimator.Choice queueDelay = estimator.queueDelay(model, workload);
        encode.put("queue-delay-ms", queueDelay.value());
        encode.put("queue-delay.reason", queueDelay.reason());
        encode.put("padding", padding.value());
        encode.put("padding.reason", padding.reason());
        encode.put("estimate.hardware", estimator.profile().id());
        encode.putAll(estimator.encode(model, workload, 1).params());
        nodes.add(new PlanNode("encode", "encode", model.id(), List.of("chunk"), encode));
        Map<String, String> pool = new LinkedHashMap<>();
        pool.put("method", model.pooling().name().toLowerCase(java.util.Locale.ROOT));
        pool.put("normalize", model.normalize() ? "l2" : "none");
        pool.putAll(estimator.host("pool", documentTokens, 1));
        nodes.add(new PlanNode("pool", "pool", null, List.of("encode"), pool));
        Map<String, String> decode = new LinkedHashMap<>();
        decode.put("task", task);
        decode.put("decoder", decoder);
        if (decoder.equals("summarize")) {
            CostEstimator.Choice similarity = estimator.similarity(workload, model.hiddenSize());
            decode.put("similarity", similarity.value());
            decode.put("similarity.reason", similarity.reason());
        }
        decode.putAll(estimator.host("decode/" + decoder, documentTokens, 1));
        String decodeId = "decode/" + task;
        ClassifierHead head = null;
        String decodeInput = "pool";
        if (withHead) {
            TaskHeads.TierHead fitted = heads.head(task, model);
            head = fitted.head();
            nodes.add(headNode(fitted, heads.minProbability(task), workload));
            decodeInput = "head";
            decode.put("head", "true");
        }
        nodes.add(new PlanNode(decodeId, "decode", null, List.of(decodeInput), decode));
        String previous = decodeId;
        if (decoder.equals("classify")) {
            previous =
                    postNode(
                            nodes,
                            "evidence",
                            previous,
                            "optional",
                            "adds each label's best supporting sentence; skipped under memory"
                                    + " pressure");
        }
        previous =
                postNode(
                        nodes,
                        "redact",
                        previous,
                        "compliance",
                        "masks e-mail addresses, IBANs, card and phone numbers; on in strict"
                                + " compliance mode or when the request asks (redact=true)");
        postNode(
                nodes,
                "audit",
                previous,
                "compliance",
                "records prompt and output hashes, graph id and model checksum; on in strict"
                        + " compliance mode or when the request asks (audit=true)");
        FallbackPaths fallbacks = new FallbackPaths(estimator, tierQuality);
        List<PlanNode> fallback = fallbacks.of(nodes, workload, model, alone);
        ClassifierHead fallbackHead = null;
        if (withHead) {
            EncoderModel fallbackModel = fallbacks.tier(model, alone);
            TaskHeads.TierHead fitted = heads.head(task, fallbackModel);
            fallbackHead = fitted.head();
            PlanNode fallbackHeadNode = headNode(fitted, heads.minProbability(task), workload);
            fallback.replaceAll(n -> n.kind().equals("head") ? fallbackHeadNode : n);
        }
        return new ExecutionPlan(
                identity.planId(
                        ExecutionPlan.canonicalForm(task, outputFormat, fidelity, nodes, fallback)),
                shape,
                task,
                outputFormat,
                fidelity,
                identity,
                nodes,
                fallback,
                head,
                fallbackHead);
    }

    /**
     * The head node of a task with examples: the head fit on the tier's vectors, named by its
     * weights' hash (so the weights are part of the graph id), with its examples and every
     * candidate's cross-validated accuracy.
     */
    private PlanNode headNode(
            TaskHeads.TierHead fitted, double minProbability, StructureWorkload workload) {
        ClassifierHead head = fitted.head();
        Map<String, String> p = new LinkedHashMap<>();
        p.put("fit", fitted.fit().candidate());
        p.put("labels", String.join(", ", head.labels()));
        p.put("examples", String.valueOf(fitted.examples().examples().size()));
        p.put("examples.sha256", fitted.examples().sha256());
        p.put("weights.sha256", head.sha256());
        p.put("tier", fitted.model().id());
        io.zerolayer.operators.quality.Interval a = fitted.fit().accuracy();
        p.put(
                "cv.accuracy",
                String.format(
                        java.util.Locale.ROOT,
                        "%.3f [%.3f, %.3f] %d-fold",
                        a.value(),
                        a.low(),
                        a.high(),
                        fitted.fit().folds()));
        p.put(
                "cv.candidates",
                String.join(
                        ", ",
                        fitted.fit().byCandidate().entrySet().stream()
                                .sorted(Map.Entry.comparingByKey())
                                .map(
                                        e ->
                                                String.format(
                                                        java.util.Locale.ROOT,
                                                        "%s %.3f",
                                                        e.getKey(),
                                                        e.getValue().value()))
                                .toList()));
        if (!Double.isNaN(minProbability)) {
            p.put("min-probability", String.valueOf(minProbability));
        }
        p.put(
                "reason",
                "the task's labelled examples: a linear head on each sentence's vector, fit and"
                        + " cross-validated by the compiler");
        p.putAll(estimator.host("head", workload.documentTokens(), 1));
        return new PlanNode("head", "head", null, List.of("pool"), p);
    }

    /** Appends a post-decode node ({@code role}: optional or compliance); returns its id. */
    private String postNode(
            List<PlanNode> nodes, String kind, String input, String role, String reason) {
        Map<String, String> params = new LinkedHashMap<>();
        params.put(role, "true");
        params.put("reason", reason);
        params.put("estimate.micros", "1");
        nodes.add(new PlanNode(kind, kind, null, List.of(input), params));
        return kind;
    }

    /**
     * What a plan's tier is chosen by.
     *
     * @param floor the structure's quality floor
     * @param exact compliance level 3
     * @param forced a tier the plan must run (the SAFE graph's), or null to choose
     * @param forcedReason why, for a forced tier
     */
    private record Tier(
            QualityFloor floor, boolean exact, EncoderModel forced, String forcedReason) {}
}
