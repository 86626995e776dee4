package io.zerolayer.operators.tasks;

import io.zerolayer.schemas.audit.AuditChainHash;
import java.util.Map;

/**
 * Compliance node: records what produced the answer, as response attributes — SHA-256 of the prompt
 * and of the output, the graph id and the encoder's model checksum — so an auditor can match a
 * stored answer to its input and the exact graph and weights that computed it.
 */
public final class Audit implements PostDecodeNode {
    /** The response attribute naming the encoder that ran, as model@weight-checksum. */
    public static final String MODEL_ATTRIBUTE = "audit.model";

    Audit() {}

    @Override
    public Result apply(TaskInput in, String output, String outputFormat, Context context) {
        return new Result(
                output,
                Map.of(
                        "audit.prompt-sha256",
                        sha256(context.source()),
                        "audit.output-sha256",
                        sha256(output),
                        "audit.graph-id",
                        context.graphId(),
                        MODEL_ATTRIBUTE,
                        in.model() + "@" + context.modelChecksum()),
                0);
    }

    static String sha256(String text) {
        return AuditChainHash.sha256Hex(text);
    }
}
