package io.zerolayer.operators.documents;

import java.text.Normalizer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Collects a document's text section by section as a reader walks it: {@link #heading} starts a
 * section, {@link #append} adds text to the current one. Empty sections are dropped.
 */
final class SectionsBuilder {
    /** Longest section name kept; the full heading stays in {@link Document.Section#heading}. */
    static final int MAX_NAME_LENGTH = 48;

    private final List<Document.Section> sections = new ArrayList<>();
    private String name;
    private String heading;
    private StringBuilder text = new StringBuilder();

    void heading(String headingText) {
        flush();
        heading = headingText.strip();
        name = slug(heading);
    }

    void append(String s) {
        text.append(s);
    }

    /** Ends the current paragraph: one blank line between paragraphs, never more. */
    void paragraphBreak() {
        int len = text.length();
        if (len == 0) {
            return;
        }
        if (text.charAt(len - 1) != '\n') {
            text.append("\n\n");
        } else if (len < 2 || text.charAt(len - 2) != '\n') {
            text.append('\n');
        }
    }

    Document build(String title) {
        flush();
        return new Document(title == null || title.isBlank() ? null : title.strip(), sections);
    }

    private void flush() {
        String t = text.toString().strip();
        if (!t.isEmpty()) {
            sections.add(new Document.Section(name, heading, t));
        }
        text = new StringBuilder();
    }

    /**
     * A heading as a section tag value: "2.1 Related Work" → "related-work". Letters are folded to
     * ASCII where they decompose (é → e); numbering is dropped; empty becomes "section".
     */
    static String slug(String heading) {
        String ascii =
                Normalizer.normalize(heading, Normalizer.Form.NFD)
                        .replaceAll("\\p{M}+", "")
                        .toLowerCase(Locale.ROOT);
        String s =
                ascii.replaceFirst("^[\\divxlc]+([.)]\\d+)*[.)]?\\s+", "") // "2.1 ", "iv. "
                        .replaceAll("[^a-z0-9_]+", "-")
                        .replaceAll("^-+|-+$", "");
        if (s.length() > MAX_NAME_LENGTH) {
            s = s.substring(0, MAX_NAME_LENGTH).replaceAll("-+$", "");
        }
        return s.isEmpty() ? "section" : s;
    }
}
