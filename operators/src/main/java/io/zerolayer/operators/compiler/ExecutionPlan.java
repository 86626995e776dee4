package io.zerolayer.operators.compiler;

import io.zerolayer.schemas.ExecutionGraph;
import io.zerolayer.schemas.Fidelity;
import java.time.Instant;
import java.util.List;

/** The static graph compiled for one structure: nodes in execution order, and their identity. */
public record ExecutionPlan(
        String graphId,
        String signature,
        String task,
        String outputFormat,
        Fidelity fidelity,
        GraphIdentity identity,
        List<PlanNode> nodes) {

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

    public ExecutionGraph toDescriptor(Instant compiledAt) {
        return ExecutionGraph.newBuilder()
                .setGraphId(graphId)
                .setSignature(signature)
                .setTask(task)
                .setOutputFormat(outputFormat)
                .setFidelity(fidelity)
                .setContractVersion(identity.contractVersion())
                .setCompilerVersion(identity.compilerVersion())
                .setRuntimeVersion(identity.runtimeVersion())
                .setHardwareProfile(identity.hardwareProfile())
                .setModelChecksums(identity.modelChecksums())
                .setNodes(nodes.stream().map(PlanNode::toAvro).toList())
                .setCompiledAt(compiledAt)
                .build();
    }
}
