package io.zerolayer.operators.documents;

import java.util.ArrayList;
import java.util.List;

/**
 * Cuts a long document into parts of at most {@code maxChars} characters of text at section
 * boundaries, so each part is one request of bounded size: parts run as separate requests, in
 * parallel on whichever slots own their graphs, and their results are combined per document ({@link
 * PartResults}). Consecutive short sections share a part; a section longer than a part is cut at
 * paragraph breaks (else line breaks, else spaces), its pieces keeping its name.
 */
public final class DocumentParts {
    private DocumentParts() {}

    /** The parts of {@code doc}, in reading order; the document itself when it fits in one. */
    public static List<Document> split(Document doc, int maxChars) {
        if (maxChars < 1000) {
            throw new IllegalArgumentException(
                    "--part-chars must be at least 1000, not " + maxChars);
        }
        if (doc.chars() <= maxChars) {
            return List.of(doc);
        }
        List<Document.Section> pieces = new ArrayList<>();
        for (Document.Section s : doc.sections()) {
            for (String text : cut(s.text(), maxChars)) {
                pieces.add(new Document.Section(s.name(), s.heading(), text));
            }
        }
        List<Document> parts = new ArrayList<>();
        List<Document.Section> current = new ArrayList<>();
        long size = 0;
        for (Document.Section p : pieces) {
            if (!current.isEmpty() && size + p.text().length() > maxChars) {
                parts.add(new Document(doc.title(), current));
                current = new ArrayList<>();
                size = 0;
            }
            current.add(p);
            size += p.text().length();
        }
        if (!current.isEmpty()) {
            parts.add(new Document(doc.title(), current));
        }
        return parts;
    }

    /** Text cut into pieces of at most {@code max} characters at the best break before each. */
    static List<String> cut(String text, int max) {
        List<String> out = new ArrayList<>();
        int from = 0;
        while (text.length() - from > max) {
            int limit = from + max;
            int at = text.lastIndexOf("\n\n", limit);
            if (at <= from + max / 4) {
                at = text.lastIndexOf('\n', limit);
            }
            if (at <= from + max / 4) {
                at = text.lastIndexOf(' ', limit);
            }
            if (at <= from) {
                at = limit; // one unbroken run: cut it where it must be
            }
            String piece = text.substring(from, at).strip();
            if (!piece.isEmpty()) {
                out.add(piece);
            }
            from = at;
        }
        String rest = text.substring(from).strip();
        if (!rest.isEmpty()) {
            out.add(rest);
        }
        return out;
    }
}
