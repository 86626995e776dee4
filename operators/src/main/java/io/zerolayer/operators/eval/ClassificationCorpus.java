package io.zerolayer.operators.eval;

import java.util.List;
import java.util.Map;

/**
 * A labelled corpus asked as zero-shot classification: each text's prompt offers every label's
 * hypothesis text, and the answer is right when the top label is the corpus's own.
 *
 * @param name the dataset's name in tables and the quality profile
 * @param source the Debian package and files it is read from
 * @param hypotheses corpus label → the label text the prompt offers, in prompt order
 * @param items the labelled texts
 */
public record ClassificationCorpus(
        String name, String source, Map<String, String> hypotheses, List<LabelledText> items) {

    public ClassificationCorpus {
        hypotheses =
                java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(hypotheses));
        items = List.copyOf(items);
        for (String text : hypotheses.values()) {
            if (java.util.regex.Pattern.compile("[,|\\n]").matcher(text).find()) {
                throw new IllegalArgumentException(
                        name
                                + ": the label text '"
                                + text
                                + "' holds a separator (, | or a line break)");
            }
        }
        for (LabelledText t : items) {
            if (!hypotheses.containsKey(t.label())) {
                throw new IllegalArgumentException(
                        name
                                + ": "
                                + t.id()
                                + " has label "
                                + t.label()
                                + ", which no hypothesis names");
            }
        }
    }

    /** The share of the most common label: what always answering it would score. */
    public double majorityShare() {
        Map<String, Long> counts =
                items.stream()
                        .collect(
                                java.util.stream.Collectors.groupingBy(
                                        LabelledText::label,
                                        java.util.stream.Collectors.counting()));
        return items.isEmpty()
                ? 0
                : (double) counts.values().stream().mapToLong(Long::longValue).max().orElse(0)
                        / items.size();
    }
}
