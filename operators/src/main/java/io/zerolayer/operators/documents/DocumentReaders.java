package io.zerolayer.operators.documents;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** Reads a file's bytes as a {@link Document} of the format its name says. */
public final class DocumentReaders {
    private DocumentReaders() {}

    /**
     * @throws UnreadableDocumentException when the bytes are not that format, or hold no text
     * @throws IllegalArgumentException for formats that hold prompts, not documents
     */
    public static Document read(DocumentFormat format, byte[] bytes, String fileName)
            throws UnreadableDocumentException {
        Document doc =
                switch (format) {
                    case TEXT -> PlainTextReader.read(utf8(bytes));
                    case MARKDOWN -> MarkdownReader.read(utf8(bytes));
                    case HTML -> HtmlReader.read(bytes);
                    case PDF -> PdfReader.read(bytes);
                    case JSONL, PROMPT ->
                            throw new IllegalArgumentException(
                                    format + " files hold prompts, not documents");
                };
        if (doc.isBlank()) {
            throw new UnreadableDocumentException(
                    "no text found in " + fileName + " (read as " + format.shortName() + ")");
        }
        return doc;
    }

    /** Strict UTF-8 (a BOM is dropped): a binary file named .txt is an error, not mojibake. */
    public static String utf8(byte[] bytes) throws UnreadableDocumentException {
        try {
            String s =
                    StandardCharsets.UTF_8
                            .newDecoder()
                            .onMalformedInput(CodingErrorAction.REPORT)
                            .onUnmappableCharacter(CodingErrorAction.REPORT)
                            .decode(ByteBuffer.wrap(bytes))
                            .toString();
            if (s.indexOf('\u0000') >= 0) {
                throw new UnreadableDocumentException(
                        "binary content (NUL bytes): not a text file");
            }
            return s.startsWith("\uFEFF") ? s.substring(1) : s;
        } catch (CharacterCodingException e) {
            throw new UnreadableDocumentException("not UTF-8 text: " + e.getMessage(), e);
        }
    }
}
