package io.zerolayer.operators.tasks;

import java.util.Map;

/**
 * A node after decode that works on the decoded output: an <em>optional</em> extra, which dynamic
 * pruning may skip under memory pressure, or a <em>compliance</em> node, which strict compliance
 * mode forces on.
 */
public interface PostDecodeNode {
    /** What a post-decode node made of the output; {@code annotations} go to the response. */
    record Result(String output, Map<String, String> annotations, long flops) {}

    Result apply(TaskInput input, String output, String outputFormat, Context context);

    /** What the node may need besides the task's input. */
    record Context(String graphId, String source, String modelChecksum) {}

    /**
     * Adds to {@code combined} (a split request's result, from its decoder's {@link
     * DocumentTask#combineParts}) what the post-decode nodes added to its parts' JSON results: a
     * classification's {@code evidence}, each label's best-supported sentence of any part.
     */
    static void combineParts(
            java.util.List<com.fasterxml.jackson.databind.JsonNode> parts,
            com.fasterxml.jackson.databind.node.ObjectNode combined) {
        LabelEvidence.combineParts(parts, combined);
    }

    /** The node implementing a plan node kind. */
    static PostDecodeNode forKind(String kind) {
        return switch (kind) {
            case "evidence" -> new LabelEvidence();
            case "redact" -> new Redaction();
            case "audit" -> new Audit();
            default -> throw new IllegalArgumentException("No post-decode node '" + kind + "'");
        };
    }
}
