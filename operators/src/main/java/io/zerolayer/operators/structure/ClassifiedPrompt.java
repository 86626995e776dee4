package io.zerolayer.operators.structure;

import io.zerolayer.operators.prompt.ParsedPrompt;
import java.util.List;

/**
 * A prompt after structure classification: its signature, its task and output format, and what is
 * wrong with it. Only prompts without errors are compiled.
 */
public record ClassifiedPrompt(
        ParsedPrompt parsed,
        StructureSignature signature,
        String task,
        String outputFormat,
        List<PromptDiagnostic> diagnostics) {

    public boolean compiles() {
        return diagnostics.stream().noneMatch(PromptDiagnostic::isError);
    }
}
