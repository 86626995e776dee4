package io.zerolayer.operators.tasks;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;

/**
 * Compliance node: records what produced the answer, as response attributes — SHA-256 of the prompt
 * and of the output, the graph id and the encoder's model checksum — so an auditor can match a
 * stored answer to its input and the exact graph and weights that computed it.
 */
final class Audit implements PostDecodeNode {
    @Override
    public Result apply(TaskInput in, String output, String outputFormat, Context context) {
        return new Result(
                output,
                Map.of(
                        "audit.prompt-sha256", sha256(context.source()),
                        "audit.output-sha256", sha256(output),
                        "audit.graph-id", context.graphId(),
                        "audit.model", in.model() + "@" + context.modelChecksum()),
                0);
    }

    static String sha256(String text) {
        try {
            return HexFormat.of()
                    .formatHex(
                            MessageDigest.getInstance("SHA-256")
                                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
