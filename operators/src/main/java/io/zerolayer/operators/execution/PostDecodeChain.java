package io.zerolayer.operators.execution;

import io.zerolayer.operators.compiler.ExecutionPlan;
import io.zerolayer.operators.compiler.PlanNode;
import io.zerolayer.operators.tasks.PostDecodeNode;
import io.zerolayer.operators.tasks.TaskInput;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The nodes a plan runs after decode, in plan order, each on the output of the one before: optional
 * ones (label evidence) are skipped when a request runs pruned, compliance ones (redact, audit) run
 * only where the request's mode turns them on.
 */
final class PostDecodeChain {
    /** A request's output after the chain, what each node added, and the nodes it skipped. */
    record Result(String output, Map<String, String> annotations, List<String> pruned) {}

    private final List<PlanNode> nodes = new ArrayList<>();
    private final List<PostDecodeNode> impls = new ArrayList<>();

    PostDecodeChain(ExecutionPlan plan, PlanNode decode) {
        boolean afterDecode = false;
        for (PlanNode node : plan.nodes()) {
            if (afterDecode) {
                nodes.add(node);
                impls.add(PostDecodeNode.forKind(node.kind()));
            }
            afterDecode |= node == decode;
        }
    }

    /**
     * Runs the chain for one request, adding a node run to {@code runs} for each node that ran.
     *
     * @param items the request's chunks, what each node's run counts
     */
    Result run(
            TaskInput input,
            String output,
            String outputFormat,
            CompiledGraph.RunMode mode,
            PostDecodeNode.Context context,
            int items,
            List<NodeRun> runs) {
        List<String> pruned = new ArrayList<>();
        Map<String, String> annotations = new TreeMap<>();
        for (int i = 0; i < nodes.size(); i++) {
            PlanNode node = nodes.get(i);
            if (Boolean.parseBoolean(node.params().get("optional")) && mode.pruneOptional()) {
                pruned.add(node.nodeId());
                continue;
            }
            if (Boolean.parseBoolean(node.params().get("compliance"))
                    && !mode.compliance().contains(node.kind())) {
                continue;
            }
            NodeTimer timer = new NodeTimer();
            PostDecodeNode.Result post = impls.get(i).apply(input, output, outputFormat, context);
            output = post.output();
            annotations.putAll(post.annotations());
            runs.add(timer.run(node.nodeId(), node.kind(), null, items, null, post.flops(), null));
        }
        return new Result(output, annotations, List.copyOf(pruned));
    }
}
