package io.zerolayer.operators.structure;

import io.zerolayer.operators.contracts.DiagnosticCodes;
import io.zerolayer.operators.contracts.TaskContract;
import io.zerolayer.operators.prompt.ParsedPrompt;
import io.zerolayer.operators.prompt.PromptDiagnostic;
import java.util.List;

/**
 * A prompt after reading and type-checking.
 *
 * @param parsed the tree, or null when the prompt was too large to read
 * @param signature the structure signature, or null when the tree is incomplete
 * @param contract the task's contract, or null when no known task was found
 */
public record ClassifiedPrompt(
        ParsedPrompt parsed,
        StructureSignature signature,
        TaskContract contract,
        String outputFormat,
        List<PromptDiagnostic> diagnostics) {

    /** True when there is no error: the prompt compiles to its own graph. */
    public boolean compiles() {
        return diagnostics.stream().noneMatch(PromptDiagnostic::isError);
    }

    /**
     * True when the prompt fails only because its structure is abnormal (too deep, too many tags,
     * unbalanced, unknown or misplaced tags): it may be served by the SAFE graph.
     */
    public boolean abnormal() {
        return !compiles()
                && diagnostics.stream()
                        .filter(PromptDiagnostic::isError)
                        .allMatch(d -> DiagnosticCodes.ABNORMAL.contains(d.code()));
    }

    public String task() {
        return contract == null ? null : contract.name();
    }
}
