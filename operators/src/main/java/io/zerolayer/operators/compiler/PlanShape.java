package io.zerolayer.operators.compiler;

import io.zerolayer.operators.quality.QualityFloor;
import io.zerolayer.operators.structure.StructureSignature;
import java.util.Map;

/**
 * The features of a structure its plan is compiled from, and nothing else: the task and its
 * decoder, the output format, the size bucket of the whole document and the query sequences it
 * brings, and the tier it may run on. Section names and counts, how text is split into runs, tag
 * order, enum attributes such as a document's format and the size bucket of each run are left out:
 * they change the structure signature but not what runs, so structures that differ only in them
 * share one plan, one graph id and one warm graph.
 *
 * <p>The plan's choices (precision, micro-batch size, queue delay) and estimates are made for the
 * shape's {@link #representative()} request, so they follow from the shape alone.
 *
 * @param documentBucket the size bucket ({@link StructureSignature#sizeBucket}, one per doubling)
 *     of the document's characters as the size buckets of its runs estimate them
 * @param querySequences question, label or field sequences encoded with the document (already
 *     bucketed: a label list's count comes from its text's size bucket)
 * @param quality the floor the encoder tier is chosen by
 * @param exact compliance level 3: a quantised tier only where it loses nothing
 */
public record PlanShape(
        String task,
        String decoder,
        String outputFormat,
        int documentBucket,
        int querySequences,
        QualityFloor quality,
        boolean exact) {

    /** The shape of a structure's plan. */
    public static PlanShape of(CompilableStructure structure) {
        StructureWorkload w = structure.workload();
        return new PlanShape(
                structure.task(),
                structure.decoder(),
                structure.outputFormat(),
                StructureSignature.sizeBucket(
                        (int)
                                Math.min(
                                        Integer.MAX_VALUE,
                                        Math.round(
                                                w.documentTokens()
                                                        * StructureWorkload.CHARS_PER_TOKEN))),
                w.querySequences(),
                structure.quality(),
                structure.exact());
    }

    /**
     * The request the plan is compiled for: one run of text at the middle of the document's size
     * bucket and the shape's queries. A document of one text run is its own representative, so its
     * plan is the one its own workload would give.
     */
    public StructureWorkload representative() {
        return new StructureWorkload(
                Map.of(
                        "document",
                        StructureWorkload.representativeChars(documentBucket)
                                / StructureWorkload.CHARS_PER_TOKEN),
                1,
                querySequences,
                GraphCompiler.strategyOf(decoder));
    }

    /** How the descriptor and logs name the shape: {@code classify→json doc~6 queries=4}. */
    public String describe() {
        return task
                + (task.equals(decoder) ? "" : "(" + decoder + ")")
                + "→"
                + outputFormat
                + " doc~"
                + documentBucket
                + " queries="
                + querySequences
                + " quality="
                + quality
                + (exact ? " exact" : "");
    }
}
