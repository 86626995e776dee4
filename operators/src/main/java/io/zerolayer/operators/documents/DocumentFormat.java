package io.zerolayer.operators.documents;

import java.util.Locale;
import java.util.Optional;

/**
 * The file formats {@code zerolayer analyze} reads, by file extension, and the {@code format}
 * attribute their text carries in the prompt ({@code <document format="pdf-text">}).
 */
public enum DocumentFormat {
    TEXT("text", ".txt", ".text"),
    MARKDOWN("markdown", ".md", ".markdown"),
    HTML("html", ".html", ".htm"),
    PDF("pdf-text", ".pdf"),
    /** One prompt a line, in the prompt language: {@code {"id": "…", "prompt": "…"}}. */
    JSONL(null, ".jsonl"),
    /** A prompt file as {@code zerolayer check} and {@code submit} read it. */
    PROMPT(null, ".prompt");

    private final String promptFormat;
    private final String[] extensions;

    DocumentFormat(String promptFormat, String... extensions) {
        this.promptFormat = promptFormat;
        this.extensions = extensions;
    }

    /** The {@code format} attribute of the prompt's {@code <document>}; null for prompt files. */
    public String promptFormat() {
        return promptFormat;
    }

    /** The format a file name says it has, if it is one analyze reads. */
    public static Optional<DocumentFormat> of(String fileName) {
        String lower = fileName.toLowerCase(Locale.ROOT);
        for (DocumentFormat f : values()) {
            for (String ext : f.extensions) {
                if (lower.endsWith(ext)) {
                    return Optional.of(f);
                }
            }
        }
        return Optional.empty();
    }

    /** The extensions analyze reads, for messages: ".txt, .text, .md, …". */
    public static String extensions() {
        StringBuilder sb = new StringBuilder();
        for (DocumentFormat f : values()) {
            for (String ext : f.extensions) {
                sb.append(sb.isEmpty() ? "" : ", ").append(ext);
            }
        }
        return sb.toString();
    }

    /** The short name used in result rows: txt, md, html, pdf, jsonl, prompt. */
    public String shortName() {
        return extensions[0].substring(1);
    }
}
