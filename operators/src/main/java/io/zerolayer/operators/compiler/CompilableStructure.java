package io.zerolayer.operators.compiler;

import io.zerolayer.operators.quality.QualityFloor;
import io.zerolayer.operators.structure.ClassifiedPrompt;
import io.zerolayer.operators.structure.DocumentContent;
import io.zerolayer.operators.structure.StructureSignature;

/**
 * All a graph follows from besides its {@link GraphIdentity}: a type-checked prompt's signature,
 * its task's name and decoder, its output format, the workload one request brings, and the tier it
 * may run on (its quality floor; {@code exact} at compliance level 3). Small and content-free, so
 * it crosses from the classifier to the executor with the request, and the executor compiles from
 * it without reading or type-checking the prompt again.
 */
public record CompilableStructure(
        StructureSignature signature,
        String task,
        String decoder,
        String outputFormat,
        StructureWorkload workload,
        QualityFloor quality,
        boolean exact) {

    public CompilableStructure {
        java.util.Objects.requireNonNull(quality, "quality");
    }

    /**
     * This structure with the request's quality floor in place of its task's ({@code floor}; null
     * keeps the task's) and, for a request at compliance level 3, {@code exact}: the tier its plan
     * may choose.
     */
    public CompilableStructure withTier(QualityFloor floor, boolean exact) {
        QualityFloor raised = floor == null ? quality : floor;
        boolean ex = this.exact || exact;
        return raised == quality && ex == this.exact
                ? this
                : new CompilableStructure(
                        signature, task, decoder, outputFormat, workload, raised, ex);
    }

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
                GraphCompiler.workload(prompt, content),
                prompt.contract().quality(),
                false);
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
