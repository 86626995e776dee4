package io.zerolayer.operators.documents;

/** A plain-text file: one body of text, paragraphs kept, line endings normalised. */
final class PlainTextReader {
    private PlainTextReader() {}

    static Document read(String text) {
        SectionsBuilder b = new SectionsBuilder();
        b.append(text.replace("\r\n", "\n").replace('\r', '\n'));
        return b.build(null);
    }
}
