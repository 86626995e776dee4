package io.zerolayer.operators.documents;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.pdfbox.Loader;
import org.apache.pdfbox.io.IOUtils;
import org.apache.pdfbox.io.RandomAccessReadBuffer;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.encryption.InvalidPasswordException;
import org.apache.pdfbox.text.PDFTextStripper;
import org.apache.pdfbox.text.TextPosition;

/**
 * A PDF's text through Apache PDFBox, in content order. Headings are found by font size: a short
 * line set at least {@value #HEADING_RATIO}× the body size (the size most characters use) starts a
 * section; the largest line of page one is the title when no metadata title is set. Caption lines
 * ("Figure 3: …", "Table 2.") are marked {@code <figure:3>} / {@code <table:2>}. Words hyphenated
 * across lines are joined. PDFBox buffers in a temporary file, not the heap, so a 300-page paper
 * reads in bounded memory.
 */
final class PdfReader {
    static final double HEADING_RATIO = 1.15;

    /** Longest line taken as a heading; longer large-font text is body (a pull quote, say). */
    static final int MAX_HEADING_CHARS = 120;

    private static final Pattern CAPTION =
            Pattern.compile("^(Figure|Fig\\.|FIGURE|Table|TABLE)\\s+(\\d{1,4})\\b");

    private PdfReader() {}

    /** A line of text as laid out, with the largest font size on it. */
    record Line(String text, float size, int page, boolean paragraphEnd) {}

    static Document read(byte[] bytes) throws UnreadableDocumentException {
        try (PDDocument pdf =
                Loader.loadPDF(
                        new RandomAccessReadBuffer(bytes),
                        "",
                        null,
                        null,
                        IOUtils.createTempFileOnlyStreamCache())) {
            LineStripper stripper = new LineStripper();
            stripper.getText(pdf); // fills stripper.lines
            String metaTitle = pdf.getDocumentInformation().getTitle();
            return assemble(stripper.lines, metaTitle);
        } catch (InvalidPasswordException e) {
            throw new UnreadableDocumentException(
                    "the PDF is encrypted with a password; decrypt it first", e);
        } catch (IOException e) {
            throw new UnreadableDocumentException("not a readable PDF: " + e.getMessage(), e);
        }
    }

    static Document assemble(List<Line> lines, String metaTitle) {
        float body = bodySize(lines);
        String title = metaTitle == null || metaTitle.isBlank() ? null : metaTitle.strip();
        int titleEnd = -1; // title lines are not text
        if (title == null) {
            float largest = 0;
            for (Line l : lines) {
                if (l.page() == 1 && isHeading(l, body)) {
                    largest = Math.max(largest, l.size());
                }
            }
            StringBuilder t = new StringBuilder();
            for (int i = 0; i < lines.size() && lines.get(i).page() == 1; i++) {
                Line l = lines.get(i);
                if (largest > 0 && l.size() == largest && isHeading(l, body)) {
                    t.append(t.isEmpty() ? "" : " ").append(l.text().strip());
                    titleEnd = i;
                } else if (!t.isEmpty()) {
                    break;
                }
            }
            title = t.isEmpty() ? null : t.toString();
        }
        SectionsBuilder b = new SectionsBuilder();
        String pending = null; // a line ending in a hyphen, waiting for its next line
        for (int i = 0; i < lines.size(); i++) {
            Line l = lines.get(i);
            if (i <= titleEnd && l.page() == 1 && title != null) {
                continue;
            }
            String text = l.text().strip();
            if (text.isEmpty()) {
                continue;
            }
            if (isHeading(l, body) && !CAPTION.matcher(text).find()) {
                if (pending != null) {
                    b.append(pending);
                    pending = null;
                }
                b.heading(text);
                continue;
            }
            Matcher caption = CAPTION.matcher(text);
            boolean isCaption = caption.find();
            if (isCaption) {
                b.paragraphBreak();
                String kind = caption.group(1).toLowerCase().startsWith("t") ? "table" : "figure";
                text = "<" + kind + ":" + Integer.parseInt(caption.group(2)) + "> " + text;
            }
            if (pending != null) {
                boolean joins = !text.isEmpty() && Character.isLowerCase(text.charAt(0));
                b.append(joins ? pending.substring(0, pending.length() - 1) : pending + " ");
                pending = null;
            }
            if (text.endsWith("-") && text.length() > 1 && i + 1 < lines.size()) {
                pending = text;
                continue;
            }
            b.append(text);
            if (l.paragraphEnd() || isCaption) {
                b.paragraphBreak();
            } else {
                b.append(" "); // a line break inside a paragraph is only layout
            }
        }
        if (pending != null) {
            b.append(pending);
        }
        return b.build(title);
    }

    private static boolean isHeading(Line l, float body) {
        String t = l.text().strip();
        return body > 0
                && l.size() >= body * HEADING_RATIO
                && t.length() <= MAX_HEADING_CHARS
                && t.chars().anyMatch(Character::isLetter);
    }

    /** The font size most characters are set in, to the half point. */
    static float bodySize(List<Line> lines) {
        Map<Float, Integer> chars = new HashMap<>();
        for (Line l : lines) {
            chars.merge(Math.round(l.size() * 2) / 2f, l.text().length(), Integer::sum);
        }
        return chars.entrySet().stream()
                .max(Map.Entry.comparingByValue())
                .map(Map.Entry::getKey)
                .orElse(0f);
    }

    /** Collects lines with their font sizes instead of writing text out. */
    private static final class LineStripper extends PDFTextStripper {
        final List<Line> lines = new ArrayList<>();
        private final StringBuilder line = new StringBuilder();
        private float size;

        LineStripper() throws IOException {}

        @Override
        protected void writeString(String text, List<TextPosition> positions) {
            line.append(text);
            for (TextPosition p : positions) {
                size = Math.max(size, p.getFontSizeInPt());
            }
        }

        @Override
        protected void writeWordSeparator() {
            line.append(' ');
        }

        @Override
        protected void writeLineSeparator() {
            endLine(false);
        }

        @Override
        protected void writeParagraphEnd() {
            endLine(true);
        }

        @Override
        protected void writePageEnd() {
            endLine(true);
        }

        private void endLine(boolean paragraphEnd) {
            if (!line.isEmpty()) {
                lines.add(new Line(line.toString(), size, getCurrentPageNo(), paragraphEnd));
            } else if (paragraphEnd && !lines.isEmpty()) {
                Line last = lines.remove(lines.size() - 1);
                lines.add(new Line(last.text(), last.size(), last.page(), true));
            }
            line.setLength(0);
            size = 0;
        }
    }
}
