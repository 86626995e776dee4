package io.zerolayer.operators.compiler;

import io.zerolayer.gpu.EncoderModel;
import io.zerolayer.operators.prompt.TagNode;
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
 * tokenize → chunk/&lt;scope&gt; (one per section, plus body) → encode → pool → decode/&lt;task&gt;
 * </pre>
 *
 * Every decision here uses only structural facts (scopes, size buckets, the task's decoder) and the
 * slot's hardware profile, so the graph is a function of the graph id. The decisions come from the
 * {@link CostEstimator}'s figures and are recorded, with their reasons, in the encode node's
 * params: the device (CUDA where the profile is a GPU's and ONNX Runtime has the provider), the
 * encoder precision (fp32 for decoders that return vectors or passages and on CUDA; otherwise int8
 * when it saves at least {@value #INT8_MIN_SAVING_MICROS} µs a request), the micro-batch size and
 * the padding. Every node carries its estimated time.
 *
 * <p>The SAFE graph ({@link #compileSafe(int)}) serves abnormal structures: the prompt as plain
 * text, summarized extractively with the int8 encoder. It is compiled like any other graph and has
 * its own id, from the signature {@value #SAFE_SIGNATURE}.
 */
public final class GraphCompiler {
    /**
     * Content tokens per window; with [CLS] and [SEP] a window is 128, MiniLM's training length.
     */
    public static final int WINDOW_TOKENS = 126;

    /** Windows advance by this many tokens, so neighbours overlap by a quarter. */
    public static final int WINDOW_STRIDE = 96;

    /**
     * int8 costs a little fidelity (cosine ≈ 0.99 to fp32); it is chosen when it saves at least
     * this much encoding time a request.
     */
    public static final long INT8_MIN_SAVING_MICROS = 50_000;

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

    /** A compiler for no particular slot: plans use {@link CostEstimator#nominal()}. */
    public GraphCompiler(GraphIdentity identity) {
        this(identity, CostEstimator.nominal());
    }

    /**
     * @param estimator the cost model of the slot's hardware, which the plan's choices come from
     */
    public GraphCompiler(GraphIdentity identity, CostEstimator estimator) {
        this.identity = identity;
        this.estimator = estimator;
    }

    public GraphIdentity identity() {
        return identity;
    }

    public String graphId(ClassifiedPrompt prompt) {
        return identity.graphId(prompt.signature());
    }

    public String safeGraphId() {
        return identity.graphId(new StructureSignature(SAFE_SIGNATURE));
    }

    public ExecutionPlan compile(ClassifiedPrompt prompt) {
        return compile(CompilableStructure.of(prompt));
    }

    /** The graph id of a structure, for this compiler's identity. */
    public String graphId(CompilableStructure structure) {
        return identity.graphId(structure.signature());
    }

    public ExecutionPlan compile(CompilableStructure structure) {
        return plan(
                graphId(structure),
                structure.signature().canonical(),
                structure.task(),
                structure.decoder(),
                structure.outputFormat(),
                Fidelity.FULL,
                structure.workload(),
                null);
    }

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
        return plan(
                safeGraphId(),
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
                new CostEstimator.Choice(
                        "int8",
                        "SAFE graph: the cheapest encoder for text whose structure is not"
                                + " trusted"));
    }

    private ExecutionPlan plan(
            String graphId,
            String signature,
            String task,
            String decoder,
            String outputFormat,
            Fidelity fidelity,
            StructureWorkload workload,
            CostEstimator.Choice forcedPrecision) {
        CostEstimator.Choice device = estimator.device();
        CostEstimator.Choice precision =
                forcedPrecision != null
                        ? forcedPrecision
                        : estimator.precision(decoder, workload, INT8_MIN_SAVING_MICROS);
        EncoderModel model = encoderOf(precision);
        List<String> scopes = List.copyOf(workload.scopeTokens().keySet());
        double documentTokens = workload.documentTokens();
        List<PlanNode> nodes = new ArrayList<>();
        Map<String, String> tokenize = new LinkedHashMap<>();
        tokenize.put("scopes", String.join(",", scopes));
        tokenize.putAll(
                estimator.host(
                        "tokenize",
                        documentTokens,
                        workload.textRuns() + workload.querySequences()));
        nodes.add(new PlanNode("tokenize", "tokenize", null, List.of(), tokenize));
        String strategy = workload.strategy();
        String chunkReason =
                strategy.equals("sentences")
                        ? "decoder '" + decoder + "' picks or weighs sentences"
                        : "decoder '" + decoder + "' wants context: overlapping windows";
        List<String> chunkIds = new ArrayList<>();
        for (String scope : scopes) {
            String id = "chunk/" + scope;
            chunkIds.add(id);
            Map<String, String> chunk = new LinkedHashMap<>();
            chunk.put("scope", scope);
            chunk.put("strategy", strategy);
            chunk.put("window", String.valueOf(WINDOW_TOKENS));
            chunk.put("stride", String.valueOf(WINDOW_STRIDE));
            chunk.put("reason", chunkReason);
            chunk.putAll(estimator.host("chunk", workload.scopeTokens().get(scope), 1));
            nodes.add(new PlanNode(id, "chunk", null, List.of("tokenize"), chunk));
        }
        CostEstimator.Choice batch = estimator.batchSize(model, workload);
        CostEstimator.Choice padding = estimator.padding();
        Map<String, String> encode = new LinkedHashMap<>();
        encode.put("precision", model.precision());
        encode.put("reason", precision.reason());
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
        nodes.add(new PlanNode("encode", "encode", model.id(), chunkIds, encode));
        Map<String, String> pool = new LinkedHashMap<>();
        pool.put("method", "mean");
        pool.put("normalize", "l2");
        pool.putAll(estimator.host("pool", documentTokens, 1));
        nodes.add(new PlanNode("pool", "pool", null, List.of("encode"), pool));
        Map<String, String> decode = new LinkedHashMap<>();
        decode.put("task", task);
        decode.put("decoder", decoder);
        if (decoder.equals("summarize")) {
            CostEstimator.Choice similarity = estimator.similarity(workload);
            decode.put("similarity", similarity.value());
            decode.put("similarity.reason", similarity.reason());
        }
        decode.putAll(estimator.host("decode/" + decoder, documentTokens, 1));
        String decodeId = "decode/" + task;
        nodes.add(new PlanNode(decodeId, "decode", null, List.of("pool"), decode));
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
        return new ExecutionPlan(
                graphId,
                signature,
                task,
                outputFormat,
                fidelity,
                identity,
                nodes,
                fallbackOf(nodes, workload));
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
     * The fallback path of a graph: its nodes with the encoder swapped for int8 on the CPU — the
     * cheapest session, present in every slot — and optional nodes dropped.
     */
    private List<PlanNode> fallbackOf(List<PlanNode> nodes, StructureWorkload workload) {
        List<PlanNode> fallback = new ArrayList<>();
        Map<String, List<String>> dropped = new java.util.HashMap<>();
        for (PlanNode node : nodes) {
            if (Boolean.parseBoolean(node.params().get("optional"))) {
                dropped.put(node.nodeId(), node.inputs());
                continue;
            }
            if (node.inputs().stream().anyMatch(dropped::containsKey)) {
                List<String> inputs = new ArrayList<>();
                node.inputs().forEach(i -> inputs.addAll(dropped.getOrDefault(i, List.of(i))));
                node =
                        new PlanNode(
                                node.nodeId(), node.kind(), node.model(), inputs, node.params());
            }
            if (node.kind().equals("decode") && "cublas".equals(node.params().get("similarity"))) {
                Map<String, String> decode = new LinkedHashMap<>(node.params());
                decode.put("similarity", "cpu");
                decode.put("similarity.reason", "fallback: everything on the CPU");
                node =
                        new PlanNode(
                                node.nodeId(), node.kind(), node.model(), node.inputs(), decode);
            }
            if (!node.kind().equals("encode")) {
                fallback.add(node);
                continue;
            }
            EncoderModel int8 = EncoderModel.MINILM_L6_V2_INT8;
            Map<String, String> encode = new LinkedHashMap<>();
            encode.put("precision", int8.precision());
            encode.put(
                    "reason",
                    "fallback: the int8 encoder on the CPU, which every slot has open, when the"
                            + " main path fails or overruns");
            encode.put("device", "cpu");
            encode.put("batch-size", node.params().get("batch-size"));
            encode.put("padding", "longest");
            if (!estimator.device().value().equals("cuda")) { // a GPU profile knows no CPU rates
                encode.put("estimate.hardware", estimator.profile().id());
                encode.putAll(estimator.encode(int8, workload, 1).params());
            }
            fallback.add(new PlanNode(node.nodeId(), "encode", int8.id(), node.inputs(), encode));
        }
        return fallback;
    }
}
