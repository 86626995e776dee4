package io.zerolayer.operators.compiler;

import io.zerolayer.gpu.EncoderModel;
import io.zerolayer.operators.structure.ClassifiedPrompt;
import io.zerolayer.operators.structure.DocumentContent;
import io.zerolayer.operators.structure.StructureSignature;
import io.zerolayer.schemas.Fidelity;
import java.util.ArrayList;
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
 * Every decision here uses only structural facts (scopes, size buckets, the task's decoder), so the
 * graph is a function of the graph id. The model is chosen per encode node: decoders whose product
 * is the vector or a passage (embed, answer) get fp32; the others get int8 once a text run reaches
 * 2048 chars, where int8 runs about twice as fast on CPU at a small loss.
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

    /** Size bucket from which throughput-oriented decoders switch to the int8 encoder. */
    static final int INT8_FROM_BUCKET = 5;

    /** Signature of the SAFE graph; no prompt's signature can be equal to it (it is not a tag). */
    public static final String SAFE_SIGNATURE = "#safe-mode";

    /**
     * Decoders that read sentences: the units a summary picks and labels or fields are weighed
     * over.
     */
    private static final Set<String> SENTENCE_DECODERS = Set.of("summarize", "classify", "extract");

    private final GraphIdentity identity;
    private final CostEstimator estimator;

    public GraphCompiler(GraphIdentity identity) {
        this(identity, null);
    }

    /**
     * @param estimator adds cost estimates for the slot's hardware to the plan; may be null
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
        if (!prompt.compiles()) {
            throw new IllegalArgumentException("Prompt does not compile: " + prompt.diagnostics());
        }
        DocumentContent content = DocumentContent.of(prompt.parsed());
        String decoder = prompt.contract().decoder();
        int bucket = content.maxSizeBucket();
        EncoderModel model;
        String reason;
        if (decoder.equals("embed") || decoder.equals("answer")) {
            model = EncoderModel.MINILM_L6_V2_FP32;
            reason =
                    "decoder '"
                            + decoder
                            + "' returns a vector or single passages: fp32 keeps their fidelity";
        } else if (bucket < INT8_FROM_BUCKET) {
            model = EncoderModel.MINILM_L6_V2_FP32;
            reason =
                    "largest text run below 2048 chars (size bucket "
                            + bucket
                            + "): fp32 costs little more";
        } else {
            model = EncoderModel.MINILM_L6_V2_INT8;
            reason =
                    "largest text run in size bucket "
                            + bucket
                            + " (2048+ chars): int8, about twice the CPU throughput";
        }
        double tokens =
                content.scopes().values().stream()
                        .flatMap(List::stream)
                        .mapToDouble(
                                run ->
                                        CostEstimator.representativeChars(run.sizeBucket())
                                                / CostEstimator.CHARS_PER_TOKEN)
                        .sum();
        return plan(
                identity.graphId(prompt.signature()),
                prompt.signature().canonical(),
                prompt.task(),
                decoder,
                prompt.outputFormat(),
                Fidelity.FULL,
                List.copyOf(content.scopes().keySet()),
                model,
                reason,
                tokens);
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
                List.of("body"),
                EncoderModel.MINILM_L6_V2_INT8,
                "SAFE graph: the cheapest encoder for text whose structure is not trusted",
                maxChars / CostEstimator.CHARS_PER_TOKEN);
    }

    private ExecutionPlan plan(
            String graphId,
            String signature,
            String task,
            String decoder,
            String outputFormat,
            Fidelity fidelity,
            List<String> scopes,
            EncoderModel model,
            String modelReason,
            double estimatedTokens) {
        List<PlanNode> nodes = new ArrayList<>();
        nodes.add(
                new PlanNode(
                        "tokenize",
                        "tokenize",
                        null,
                        List.of(),
                        Map.of("scopes", String.join(",", scopes))));
        String strategy = SENTENCE_DECODERS.contains(decoder) ? "sentences" : "windows";
        String chunkReason =
                strategy.equals("sentences")
                        ? "decoder '" + decoder + "' picks or weighs sentences"
                        : "decoder '" + decoder + "' wants context: overlapping windows";
        List<String> chunkIds = new ArrayList<>();
        for (String scope : scopes) {
            String id = "chunk/" + scope;
            chunkIds.add(id);
            nodes.add(
                    new PlanNode(
                            id,
                            "chunk",
                            null,
                            List.of("tokenize"),
                            Map.of(
                                    "scope",
                                    scope,
                                    "strategy",
                                    strategy,
                                    "window",
                                    String.valueOf(WINDOW_TOKENS),
                                    "stride",
                                    String.valueOf(WINDOW_STRIDE),
                                    "reason",
                                    chunkReason)));
        }
        nodes.add(
                new PlanNode(
                        "encode",
                        "encode",
                        model.id(),
                        chunkIds,
                        encodeParams(model, modelReason, estimatedTokens, strategy)));
        nodes.add(
                new PlanNode(
                        "pool",
                        "pool",
                        null,
                        List.of("encode"),
                        Map.of("method", "mean", "normalize", "l2")));
        nodes.add(
                new PlanNode(
                        "decode/" + task,
                        "decode",
                        null,
                        List.of("pool"),
                        Map.of("task", task, "decoder", decoder)));
        return new ExecutionPlan(graphId, signature, task, outputFormat, fidelity, identity, nodes);
    }

    private Map<String, String> encodeParams(
            EncoderModel model, String reason, double tokens, String strategy) {
        Map<String, String> params = new java.util.LinkedHashMap<>();
        params.put("precision", model.precision());
        params.put("reason", reason);
        if (estimator != null) {
            params.put("estimate.hardware", estimator.profile().id());
            params.putAll(estimator.encode(model, tokens, strategy));
        }
        return params;
    }
}
