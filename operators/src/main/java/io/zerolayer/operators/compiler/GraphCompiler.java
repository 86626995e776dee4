package io.zerolayer.operators.compiler;

import io.zerolayer.gpu.EncoderModel;
import io.zerolayer.operators.structure.ClassifiedPrompt;
import io.zerolayer.operators.structure.DocumentContent;
import io.zerolayer.schemas.Fidelity;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Turns a classified prompt's structure into a static execution graph:
 *
 * <pre>
 * tokenize → chunk/&lt;scope&gt; (one per section, plus body) → encode → pool → decode/&lt;task&gt;
 * </pre>
 *
 * Every decision here uses only structural facts (scopes, size buckets, task), so the graph is a
 * function of the graph id. The model is chosen per encode node: tasks whose product is the vector
 * or a single passage (embed, answer) get fp32; summarize and classify over long documents (a text
 * run of 2048 chars or more) get int8, which runs about twice as fast on CPU at a small loss.
 */
public final class GraphCompiler {
    /**
     * Content tokens per window; with [CLS] and [SEP] a window is 128, MiniLM's training length.
     */
    public static final int WINDOW_TOKENS = 126;

    /** Windows advance by this many tokens, so neighbours overlap by a quarter. */
    public static final int WINDOW_STRIDE = 96;

    /** Size bucket from which summarize/classify switch to the int8 encoder. */
    static final int INT8_FROM_BUCKET = 5;

    private final GraphIdentity identity;

    public GraphCompiler(GraphIdentity identity) {
        this.identity = identity;
    }

    public GraphIdentity identity() {
        return identity;
    }

    public String graphId(ClassifiedPrompt prompt) {
        return identity.graphId(prompt.signature());
    }

    public ExecutionPlan compile(ClassifiedPrompt prompt) {
        if (!prompt.compiles()) {
            throw new IllegalArgumentException("Prompt does not compile: " + prompt.diagnostics());
        }
        DocumentContent content = DocumentContent.of(prompt.parsed());
        String task = prompt.task();
        List<PlanNode> nodes = new ArrayList<>();
        String scopes = String.join(",", content.scopes().keySet());
        nodes.add(new PlanNode("tokenize", "tokenize", null, List.of(), Map.of("scopes", scopes)));

        // sentences are the units a summary picks and a label is weighed over; passages and vectors
        // want context
        String strategy =
                task.equals("summarize") || task.equals("classify") ? "sentences" : "windows";
        List<String> chunkIds = new ArrayList<>();
        for (String scope : content.scopes().keySet()) {
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
                                    String.valueOf(WINDOW_STRIDE))));
        }
        EncoderModel model = chooseModel(task, content.maxSizeBucket());
        String queries =
                switch (task) {
                    case "answer" -> "question";
                    case "classify" -> "labels";
                    default -> "none";
                };
        nodes.add(
                new PlanNode(
                        "encode",
                        "encode",
                        model.id(),
                        chunkIds,
                        Map.of("queries", queries, "precision", model.precision())));
        nodes.add(
                new PlanNode(
                        "pool",
                        "pool",
                        null,
                        List.of("encode"),
                        Map.of("method", "mean", "normalize", "l2")));
        nodes.add(
                new PlanNode(
                        "decode/" + task, "decode", null, List.of("pool"), Map.of("task", task)));
        return new ExecutionPlan(
                identity.graphId(prompt.signature()),
                prompt.signature().canonical(),
                task,
                prompt.outputFormat(),
                Fidelity.FULL,
                identity,
                nodes);
    }

    static EncoderModel chooseModel(String task, int maxSizeBucket) {
        if (task.equals("embed") || task.equals("answer")) {
            return EncoderModel.MINILM_L6_V2_FP32;
        }
        return maxSizeBucket >= INT8_FROM_BUCKET
                ? EncoderModel.MINILM_L6_V2_INT8
                : EncoderModel.MINILM_L6_V2_FP32;
    }
}
