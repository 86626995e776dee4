package io.zerolayer.operators.structure;

import java.text.BreakIterator;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A request's content cut into parts of about equal text, for a long document to be encoded in
 * several slots at once. Runs stay in reading order and keep their scopes; a run that crosses a
 * part's end is cut at the last sentence end before it (else a line break, else a space, else where
 * it must be), so each piece keeps its offsets in the prompt and the sentences on either side of a
 * cut are the sentences of the whole. Every part keeps the request's question, labels, fields and
 * task attributes.
 */
public final class ContentParts {
    private ContentParts() {}

    /**
     * {@code content} in at most {@code parts} parts of about equal characters (fewer when it has
     * too little text to fill them); the content itself when {@code parts} is 1.
     */
    public static List<DocumentContent> split(DocumentContent content, int parts) {
        if (parts < 1) {
            throw new IllegalArgumentException(
                    "A request splits into 1 or more parts, not " + parts);
        }
        long total = chars(content);
        if (parts == 1 || total == 0) {
            return List.of(content);
        }
        long target = (total + parts - 1) / parts;
        List<Map<String, List<DocumentContent.TextRun>>> cut = new ArrayList<>();
        Map<String, List<DocumentContent.TextRun>> current = new LinkedHashMap<>();
        long filled = 0;
        for (Map.Entry<String, List<DocumentContent.TextRun>> scope : content.scopes().entrySet()) {
            for (DocumentContent.TextRun run : scope.getValue()) {
                String text = run.text();
                if (text == null) {
                    continue;
                }
                int from = 0;
                while (cut.size() < parts - 1 && text.length() - from > target - filled) {
                    if (target - filled < target / 8 && !current.isEmpty()) {
                        // little room left: the part ends where the last run did, not mid-word
                        cut.add(current);
                        current = new LinkedHashMap<>();
                        filled = 0;
                        continue;
                    }
                    int limit = from + (int) Math.max(0, target - filled);
                    int at = breakBefore(text, from, limit);
                    if (at > from) {
                        add(current, scope.getKey(), run, from, at);
                        filled += at - from;
                    }
                    if (!current.isEmpty()) {
                        cut.add(current);
                    }
                    current = new LinkedHashMap<>();
                    filled = 0;
                    from = at;
                }
                if (from < text.length()) {
                    add(current, scope.getKey(), run, from, text.length());
                    filled += text.length() - from;
                }
            }
        }
        if (!current.isEmpty()) {
            cut.add(current);
        }
        List<DocumentContent> out = new ArrayList<>(cut.size());
        for (Map<String, List<DocumentContent.TextRun>> scopes : cut) {
            out.add(
                    new DocumentContent(
                            scopes,
                            content.question(),
                            content.labels(),
                            content.fields(),
                            content.taskAttributes()));
        }
        return out;
    }

    /** Characters of text in {@code content}. */
    public static long chars(DocumentContent content) {
        long chars = 0;
        for (List<DocumentContent.TextRun> runs : content.scopes().values()) {
            for (DocumentContent.TextRun run : runs) {
                chars += run.text() == null ? 0 : run.text().length();
            }
        }
        return chars;
    }

    private static void add(
            Map<String, List<DocumentContent.TextRun>> part,
            String scope,
            DocumentContent.TextRun run,
            int from,
            int to) {
        String piece = run.text().substring(from, to);
        part.computeIfAbsent(scope, s -> new ArrayList<>())
                .add(
                        new DocumentContent.TextRun(
                                piece,
                                run.offset() + from,
                                StructureSignature.sizeBucket(piece.length())));
    }

    /**
     * Where to cut {@code text} at or before {@code limit} (and after {@code from}): at the last
     * sentence boundary in the second half of the span, else after its last line break, else after
     * its last space, else at {@code limit}. Sentence boundaries are the ones the chunker cuts a
     * run's sentences at ({@link BreakIterator}, English), so the sentences on either side of a cut
     * are the whole document's, and each part encodes the same sequences the whole would. A cut
     * never splits a surrogate pair.
     */
    static int breakBefore(String text, int from, int limit) {
        limit = Math.min(limit, text.length());
        int floor = from + (limit - from) / 2;
        if (limit < text.length()) {
            BreakIterator sentences = BreakIterator.getSentenceInstance(Locale.ENGLISH);
            sentences.setText(text);
            int boundary = sentences.isBoundary(limit) ? limit : sentences.preceding(limit);
            if (boundary != BreakIterator.DONE && boundary > floor) {
                return boundary;
            }
        }
        for (int i = limit; i > floor; i--) {
            if (text.charAt(i - 1) == '\n') {
                return i;
            }
        }
        for (int i = limit; i > floor; i--) {
            if (text.charAt(i - 1) == ' ') {
                return i;
            }
        }
        if (limit > from
                && limit < text.length()
                && Character.isHighSurrogate(text.charAt(limit - 1))) {
            return limit - 1;
        }
        return limit;
    }
}
