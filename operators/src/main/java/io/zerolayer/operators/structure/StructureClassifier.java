package io.zerolayer.operators.structure;

import io.zerolayer.operators.contracts.ContractChecker;
import io.zerolayer.operators.contracts.DiagnosticCodes;
import io.zerolayer.operators.contracts.Limits;
import io.zerolayer.operators.contracts.TaskContracts;
import io.zerolayer.operators.prompt.ParsedPrompt;
import io.zerolayer.operators.prompt.PromptDiagnostic;
import io.zerolayer.operators.prompt.PromptReader;
import java.util.List;

/**
 * Reads a prompt within the contracts' limits, type-checks it against its task's contract and
 * derives its {@link StructureSignature}. Never throws on any input: whatever is wrong becomes a
 * diagnostic.
 */
public final class StructureClassifier {
    private final TaskContracts contracts;
    private final ContractChecker checker;

    public StructureClassifier(TaskContracts contracts) {
        this.contracts = contracts;
        this.checker = new ContractChecker(contracts);
    }

    /** With the contracts built into the jar. */
    public StructureClassifier() {
        this(TaskContracts.builtIn());
    }

    public TaskContracts contracts() {
        return contracts;
    }

    public ClassifiedPrompt classify(String prompt) {
        Limits limits = contracts.limits();
        long bytes = utf8Length(prompt, limits.maxPromptBytes());
        if (bytes > limits.maxPromptBytes()) {
            return new ClassifiedPrompt(
                    null,
                    null,
                    null,
                    null,
                    List.of(
                            PromptDiagnostic.error(
                                    DiagnosticCodes.PROMPT_TOO_LARGE,
                                    1,
                                    1,
                                    "The prompt is larger than "
                                            + limits.maxPromptBytes()
                                            + " bytes",
                                    "split the document into several requests")));
        }
        ParsedPrompt parsed = PromptReader.read(prompt, limits.maxDepth(), limits.maxTags());
        ContractChecker.Result checked = checker.check(parsed);
        StructureSignature signature =
                parsed.complete() ? StructureSignature.of(parsed.root()) : null;
        return new ClassifiedPrompt(
                parsed, signature, checked.task(), checked.outputFormat(), checked.diagnostics());
    }

    /** UTF-8 length of {@code s}, counting no further than just past {@code stopAbove}. */
    static long utf8Length(String s, long stopAbove) {
        if ((long) s.length() * 3 <= stopAbove) {
            return s.length(); // cannot exceed the limit: skip counting
        }
        long bytes = 0;
        for (int i = 0; i < s.length() && bytes <= stopAbove; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                bytes += 1;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c)) {
                bytes += 4;
                i++;
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }
}
