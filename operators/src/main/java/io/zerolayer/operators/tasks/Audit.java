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

    /** The response attribute holding the hex SHA-256 of the prompt as it came. */
    public static final String PROMPT_SHA256_ATTRIBUTE = "audit.prompt-sha256";

    /** The response attribute holding the hex SHA-256 of the output. */
    public static final String OUTPUT_SHA256_ATTRIBUTE = "audit.output-sha256";

    Audit() {}

    @Override
    public Result apply(TaskInput in, String output, String outputFormat, Context context) {
        return new Result(
                output,
                Map.of(
                        PROMPT_SHA256_ATTRIBUTE,
                        sha256(context.source()),
                        OUTPUT_SHA256_ATTRIBUTE,
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
