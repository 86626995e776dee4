package io.zerolayer.operators.compiler;

import io.zerolayer.operators.heads.ClassifierHead;
import io.zerolayer.schemas.ExecutionGraph;
import io.zerolayer.schemas.Fidelity;
import io.zerolayer.schemas.GraphNode;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The static graph compiled for one {@link PlanShape}, which many structures share: nodes in
 * execution order, their identity, and the precompiled fallback path. Its {@code graphId} is the
 * hash of its {@link #canonicalForm} and identity, so two plans that would run alike have one id.
 *
 * @param shape what it was compiled from ({@link PlanShape#describe()}; {@link
 *     GraphCompiler#SAFE_SIGNATURE} for the SAFE graph)
 * @param fallbackNodes what a batch runs on when the main path fails: the same graph with the int8
 *     encoder on the CPU and optional nodes dropped; answered with fidelity REDUCED
 * @param head the classification head of the main path, fit on its tier's vectors from the task's
 *     labelled examples (its {@code head} node names its weights' hash); null for none
 * @param fallbackHead the head of the fallback path's tier; null for none
 */
public record ExecutionPlan(
        String graphId,
        String shape,
        String task,
        String outputFormat,
        Fidelity fidelity,
        GraphIdentity identity,
        List<PlanNode> nodes,
        List<PlanNode> fallbackNodes,
        ClassifierHead head,
        ClassifierHead fallbackHead) {

    /** The fallback path as a plan of its own (same id and structure), for binding to sessions. */
    public ExecutionPlan fallback() {
        return new ExecutionPlan(
                graphId,
                shape,
                task,
                outputFormat,
                fidelity,
                identity,
                fallbackNodes,
                List.of(),
                fallbackHead,
                null);
    }

    /**
     * The compiler's estimate of how long one request of this graph takes to encode when it runs
     * alone (the encode node's {@code queue-delay-ms}, at least 1 ms); 0 when the plan has none.
     */
    public long encodeMillisAlone() {
        String planned = node("encode").params().get("queue-delay-ms");
        return planned == null ? 0 : Long.parseLong(planned);
    }

    /**
     * The compiler's estimate of one request's padded encoder tokens (the encode node's estimate is
     * of one request); 0 when the plan has none. What a tenant's token quota counts.
     */
    public long encoderTokensPerRequest() {
        double tokens = encodeTokens();
        return Double.isNaN(tokens) ? 0 : Math.round(tokens);
    }

    /** The encode node's estimated padded tokens of one request; NaN when it has none. */
    private double encodeTokens() {
        Map<String, String> p = node("encode").params();
        String sequences = p.get("estimate.sequences");
        String seqLen = p.get("estimate.seq-len");
        return sequences == null || seqLen == null
                ? Double.NaN
                : Double.parseDouble(sequences) * Double.parseDouble(seqLen);
    }

    /**
     * Most padded tokens of one encoder run that the compiler estimates to take {@code micros}
     * microseconds: its estimate of one request's encode time over that request's padded tokens.
     * {@link Long#MAX_VALUE} when {@code micros} is, or the plan has no estimate.
     */
    public long paddedTokensWithin(long micros) {
        String estimate = node("encode").params().get("estimate.micros");
        double tokens = encodeTokens();
        if (micros == Long.MAX_VALUE || estimate == null || Double.isNaN(tokens)) {
            return Long.MAX_VALUE;
        }
        double perToken = Double.parseDouble(estimate) / tokens;
        if (!(perToken > 0) || !(tokens > 0)) {
            return Long.MAX_VALUE;
        }
        return Math.max(1, (long) (micros / perToken));
    }

    /**
     * Requests the compiler chose to run together (the encode node's {@code batch-size}; 1 if
     * none).
     */
    public int batchSize() {
        String planned = node("encode").params().get("batch-size");
        return planned == null ? 1 : Integer.parseInt(planned);
    }

    public PlanNode node(String kind) {
        return nodes.stream()
                .filter(n -> n.kind().equals(kind))
                .findFirst()
                .orElseThrow(
                        () ->
                                new IllegalStateException(
                                        "Graph " + graphId + " has no " + kind + " node"));
    }

    public List<PlanNode> nodes(String kind) {
        return nodes.stream().filter(n -> n.kind().equals(kind)).toList();
    }

    /**
     * The text a plan's id is the hash of: task, output format, fidelity and every node of the main
     * and fallback paths with its kind, model, inputs and parameters, estimates and reasons
     * included (they follow from the same shape and hardware, like the choices).
     */
    static String canonicalForm(
            String task,
            String outputFormat,
            Fidelity fidelity,
            List<PlanNode> nodes,
            List<PlanNode> fallbackNodes) {
        StringBuilder sb = new StringBuilder();
        sb.append("task=").append(task).append('\n');
        sb.append("output=").append(outputFormat).append('\n');
        sb.append("fidelity=").append(fidelity).append('\n');
        nodes.forEach(n -> appendNode(sb, "node=", n));
        fallbackNodes.forEach(n -> appendNode(sb, "fallback=", n));
        return sb.toString();
    }

    private static void appendNode(StringBuilder sb, String prefix, PlanNode n) {
        sb.append(prefix)
                .append(n.nodeId())
                .append('|')
                .append(n.kind())
                .append('|')
                .append(n.model() == null ? "" : n.model())
                .append('|')
                .append(String.join(",", n.inputs()));
        n.params().forEach((k, v) -> sb.append('|').append(k).append('=').append(v));
        sb.append('\n');
    }

    public ExecutionGraph toDescriptor(Instant compiledAt) {
        return toDescriptor(compiledAt, "", java.util.Map.of(), 0, List.of());
    }

    /**
     * The descriptor, with the compiling slot's device report, the nodes' measured p50 durations in
     * this slot over {@code runs} runs ({@code measured.p50-us}, {@code measured.runs} node params;
     * none when {@code runs} is 0) and the structure signatures the slot has seen run on it, first
     * seen first (its {@code signature} is the first; the shape when none).
     */
    public ExecutionGraph toDescriptor(
            Instant compiledAt,
            String hardwareReport,
            java.util.Map<String, Long> measuredP50Micros,
            long runs,
            List<String> structures) {
        java.util.Map<String, Long> p50 = runs == 0 ? java.util.Map.of() : measuredP50Micros;
        return ExecutionGraph.newBuilder()
                .setGraphId(graphId)
                .setSignature(structures.isEmpty() ? shape : structures.get(0))
                .setShape(shape)
                .setStructures(List.copyOf(structures))
                .setTask(task)
                .setOutputFormat(outputFormat)
                .setFidelity(fidelity)
                .setContractVersion(identity.contractVersion())
                .setCompilerVersion(identity.compilerVersion())
                .setRuntimeVersion(identity.runtimeVersion())
                .setHardwareProfile(identity.hardwareProfile())
                .setHardwareReport(hardwareReport)
                .setModelChecksums(identity.modelChecksums())
                .setNodes(
                        nodes.stream()
                                .map(
                                        n -> {
                                            GraphNode node = n.toAvro();
                                            Long measured = p50.get(n.nodeId());
                                            if (measured != null) {
                                                java.util.Map<String, String> params =
                                                        new java.util.TreeMap<>(node.getParams());
                                                params.put(
                                                        "measured.p50-us",
                                                        String.valueOf(measured));
                                                params.put("measured.runs", String.valueOf(runs));
                                                node.setParams(params);
                                            }
                                            return node;
                                        })
                                .toList())
                .setCompiledAt(compiledAt)
                .setFallbackNodes(fallbackNodes.stream().map(PlanNode::toAvro).toList())
                .build();
    }
}
