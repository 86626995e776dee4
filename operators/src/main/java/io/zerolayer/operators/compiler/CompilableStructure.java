package io.zerolayer.operators.compiler;

import io.zerolayer.operators.structure.ClassifiedPrompt;
import io.zerolayer.operators.structure.DocumentContent;
import io.zerolayer.operators.structure.StructureSignature;

/**
 * All a graph follows from besides its {@link GraphIdentity}: a type-checked prompt's signature,
 * its task's name and decoder, its output format and the workload one request brings. Small and
 * content-free, so it crosses from the classifier to the executor with the request, and the
 * executor compiles from it without reading or type-checking the prompt again.
 */
public record CompilableStructure(
        StructureSignature signature,
        String task,
        String decoder,
        String outputFormat,
        StructureWorkload workload) {

    /**
     * @throws IllegalArgumentException when the prompt does not compile
     */
    public static CompilableStructure of(ClassifiedPrompt prompt) {
        requireCompiles(prompt);
        return of(prompt, DocumentContent.of(prompt.parsed()));
    }

    /**
     * The structure of a prompt that compiles, whose content ({@link DocumentContent#of}) is
     * already read.
     */
    static CompilableStructure of(ClassifiedPrompt prompt, DocumentContent content) {
        return new CompilableStructure(
                prompt.signature(),
                prompt.task(),
                prompt.contract().decoder(),
                prompt.outputFormat(),
                GraphCompiler.workload(prompt, content));
    }

    /**
     * @throws IllegalArgumentException when the prompt does not compile
     */
    static void requireCompiles(ClassifiedPrompt prompt) {
        if (!prompt.compiles()) {
            throw new IllegalArgumentException("Prompt does not compile: " + prompt.diagnostics());
        }
    }
}
