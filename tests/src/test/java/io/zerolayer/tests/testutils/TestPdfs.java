package io.zerolayer.tests.testutils;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.pdmodel.PDPageContentStream;
import org.apache.pdfbox.pdmodel.common.PDRectangle;
import org.apache.pdfbox.pdmodel.font.PDType1Font;
import org.apache.pdfbox.pdmodel.font.Standard14Fonts;

/**
 * Writes PDFs for tests with PDFBox: a title, headings and body paragraphs set in the font sizes a
 * paper uses (title 20 pt, headings 14 pt bold, body 10 pt), wrapped and paged like a real one.
 */
public final class TestPdfs {
    private final List<Object[]> blocks = new ArrayList<>();

    public static TestPdfs builder() {
        return new TestPdfs();
    }

    public TestPdfs title(String text) {
        blocks.add(new Object[] {text, 20f, true});
        return this;
    }

    public TestPdfs heading(String text) {
        blocks.add(new Object[] {text, 14f, true});
        return this;
    }

    public TestPdfs paragraph(String text) {
        blocks.add(new Object[] {text, 10f, false});
        return this;
    }

    public byte[] build() throws IOException {
        PDType1Font regular = new PDType1Font(Standard14Fonts.FontName.HELVETICA);
        PDType1Font bold = new PDType1Font(Standard14Fonts.FontName.HELVETICA_BOLD);
        try (PDDocument doc = new PDDocument()) {
            PDPageContentStream page = null;
            float y = 0;
            for (Object[] b : blocks) {
                String text = (String) b[0];
                float size = (Float) b[1];
                PDType1Font font = (Boolean) b[2] ? bold : regular;
                for (String line : wrap(text, font, size, 480)) {
                    if (page == null || y < 60) {
                        if (page != null) {
                            page.close();
                        }
                        PDPage p = new PDPage(PDRectangle.A4);
                        doc.addPage(p);
                        page = new PDPageContentStream(doc, p);
                        y = 780;
                    }
                    page.beginText();
                    page.setFont(font, size);
                    page.newLineAtOffset(60, y);
                    page.showText(line);
                    page.endText();
                    y -= size * 1.4f;
                }
                y -= size; // paragraph gap
            }
            if (page != null) {
                page.close();
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            doc.save(out);
            return out.toByteArray();
        }
    }

    private static List<String> wrap(String text, PDType1Font font, float size, float width)
            throws IOException {
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (String word : text.split(" ")) {
            String next = line.isEmpty() ? word : line + " " + word;
            if (font.getStringWidth(next) / 1000 * size > width && !line.isEmpty()) {
                lines.add(line.toString());
                line = new StringBuilder(word);
            } else {
                line = new StringBuilder(next);
            }
        }
        lines.add(line.toString());
        return lines;
    }
}
