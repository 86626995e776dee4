package io.zerolayer.operators.documents;

import java.util.List;

/**
 * A document at rest as ZeroLayer reads it: a title and its text in sections, in reading order.
 * Text before the first heading is a section without a name (it becomes the document body).
 *
 * @param title the document's title (from its metadata or first heading), or null
 * @param sections the text, never empty once read; see {@link Section}
 */
public record Document(String title, List<Section> sections) {
    public Document {
        sections = List.copyOf(sections);
    }

    /**
     * One section of text.
     *
     * @param name the section's tag value ({@code <section:methods>}): lower-case letters, digits,
     *     {@code -} and {@code _} only; null for body text outside any section
     * @param heading the heading as the document wrote it, or null
     * @param text the section's text; figure and table captions may carry {@code <figure:n>} and
     *     {@code <table:n>} markers
     */
    public record Section(String name, String heading, String text) {}

    /** Characters of text in all sections. */
    public long chars() {
        return sections.stream().mapToLong(s -> s.text().length()).sum();
    }

    /** Whether the document has no text to analyse. */
    public boolean isBlank() {
        return sections.stream().allMatch(s -> s.text().isBlank());
    }
}
