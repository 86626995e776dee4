package io.zerolayer.operators.contracts;

import java.util.List;
import java.util.Map;

/**
 * The contract of one task.
 *
 * @param decoder the built-in decoder that computes the result (summarize, classify, answer, embed,
 *     extract)
 * @param requires tags that must be present
 * @param allows document tags the task may use besides task/output_format and its required tags;
 *     null for every known tag
 * @param attributes attributes of the {@code <task:…>} tag
 * @param maxChars most characters of text the task accepts
 * @param quality how good its answers must be: the floor the compiler chooses the encoder tier by
 *     (a tenant or a request may raise it)
 * @param examples a classify task's labelled examples, from which the compiler fits its head; null
 *     for none
 * @param minProbability a classification whose best label's probability is below it answers label
 *     {@code unknown}; NaN for none (only with examples, whose head's probabilities are calibrated)
 */
public record TaskContract(
        String name,
        String decoder,
        List<String> requires,
        List<String> allows,
        List<String> outputFormats,
        Map<String, AttributeSpec> attributes,
        int maxChars,
        io.zerolayer.operators.quality.QualityFloor quality,
        LabelledExamples examples,
        double minProbability) {

    /** The label a classification answers when no label reaches the task's min-probability. */
    public static final String UNKNOWN_LABEL = "unknown";

    /**
     * Tags whose text is an input of the task (its question, labels, fields), not document text: a
     * task needs document text besides them.
     */
    public static final java.util.Set<String> QUERY_TAGS =
            java.util.Set.of("task", "output_format", "question", "labels", "fields");

    public boolean allowsTag(String tag) {
        return allows == null
                || allows.contains(tag)
                || requires.contains(tag)
                || tag.equals("task")
                || tag.equals("output_format");
    }
}
