package io.zerolayer.operators.compiler;

import io.zerolayer.operators.prompt.PromptDiagnostic;
import io.zerolayer.operators.structure.ClassifiedPrompt;
import io.zerolayer.operators.structure.DocumentContent;
import java.util.List;

/**
 * What the classifier decided of a request, once, for the executor slot that runs it: the graph it
 * belongs to, under which contracts, what that graph is compiled from, what its prompt gives the
 * graph to read, and the plan's estimate that routed it. The executor looks the graph up (or
 * compiles it for its slot's hardware) from this alone; it reads and type-checks the prompt again
 * only when its contracts are not the ones this was decided under (a reload reached one operator
 * before the other).
 *
 * @param graphId the graph id without hardware (its plan's, compiled for any hardware): what
 *     requests are routed by, so requests of structures that share a plan share a key
 * @param structureId the id of its structure (what the prompt looked like); the SAFE graph's own
 *     signature for requests it serves
 * @param contractVersion the version of the task contracts it was type-checked against
 * @param structure what its graph is compiled from; null when the SAFE graph serves it
 * @param content what its graph reads; null for the SAFE graph, which reads the prompt as plain
 *     text
 * @param warnings why the SAFE graph serves it (its structure's errors, reported as warnings with
 *     the answer); empty otherwise
 * @param encodeMillisAlone the plan's estimate of its encode time alone on the classifier's slot
 *     hardware; 0 when unknown
 * @param part which part of a split request this is ({@code content} is then that part's); null for
 *     a whole request
 */
public record RequestDecision(
        String graphId,
        String structureId,
        String contractVersion,
        CompilableStructure structure,
        DocumentContent content,
        List<PromptDiagnostic> warnings,
        long encodeMillisAlone,
        Part part) {

    public RequestDecision {
        warnings = List.copyOf(warnings);
    }

    /** A whole request's decision. */
    public RequestDecision(
            String graphId,
            String structureId,
            String contractVersion,
            CompilableStructure structure,
            DocumentContent content,
            List<PromptDiagnostic> warnings,
            long encodeMillisAlone) {
        this(
                graphId,
                structureId,
                contractVersion,
                structure,
                content,
                warnings,
                encodeMillisAlone,
                null);
    }

    /**
     * Part {@code index} of a request split into {@code count} parts, which run on the request's
     * graph in several slots and whose results its decoder combines.
     */
    public record Part(int index, int count) {
        public Part {
            if (count < 2 || index < 0 || index >= count) {
                throw new IllegalArgumentException(
                        "Part " + index + " of " + count + ": a split has 2 or more parts");
            }
        }
    }

    /** Part {@code part} of this decision's request, reading {@code partContent}. */
    public RequestDecision asPart(Part part, DocumentContent partContent, long encodeMillis) {
        return new RequestDecision(
                graphId,
                structureId,
                contractVersion,
                structure,
                partContent,
                warnings,
                encodeMillis,
                part);
    }

    /**
     * The decision for a prompt that compiles, routed by its graph id from {@code routing} (a
     * compiler for any hardware); the estimate is added by {@link #withEstimate}.
     *
     * @throws IllegalArgumentException when the prompt does not compile
     */
    public static RequestDecision of(ClassifiedPrompt classified, GraphCompiler routing) {
        return of(classified, routing, null, false);
    }

    /**
     * As {@link #of(ClassifiedPrompt, GraphCompiler)}, with the request's quality floor {@code
     * floor} in place of its task's (null: the task's own) and, at compliance level 3, {@code
     * exact}.
     */
    public static RequestDecision of(
            ClassifiedPrompt classified,
            GraphCompiler routing,
            io.zerolayer.operators.quality.QualityFloor floor,
            boolean exact) {
        CompilableStructure.requireCompiles(classified);
        // read once: the content the graph reads is also what the workload is counted from
        DocumentContent content = DocumentContent.of(classified.parsed());
        CompilableStructure structure =
                CompilableStructure.of(classified, content).withTier(floor, exact);
        return new RequestDecision(
                routing.graphId(structure),
                routing.structureId(structure),
                routing.identity().contractVersion(),
                structure,
                content,
                List.of(),
                0);
    }

    /**
     * The decision to serve an abnormal prompt by the SAFE graph (for texts of at most {@code
     * maxChars}): its errors go with the answer as warnings.
     */
    public static RequestDecision safe(
            ClassifiedPrompt classified, GraphCompiler routing, int maxChars) {
        return new RequestDecision(
                routing.safeGraphId(maxChars),
                routing.identity()
                        .structureId(
                                new io.zerolayer.operators.structure.StructureSignature(
                                        GraphCompiler.SAFE_SIGNATURE)),
                routing.identity().contractVersion(),
                null,
                null,
                classified.diagnostics().stream().map(PromptDiagnostic::asWarning).toList(),
                0);
    }

    /** This decision with the plan's estimate of its encode time alone, in milliseconds. */
    public RequestDecision withEstimate(long encodeMillis) {
        return new RequestDecision(
                graphId,
                structureId,
                contractVersion,
                structure,
                content,
                warnings,
                encodeMillis,
                part);
    }

    /** Whether the SAFE graph serves it: its structure is abnormal and its tenant degrades. */
    public boolean safeMode() {
        return structure == null;
    }
}
