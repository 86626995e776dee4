package io.zerolayer.operators.documents;

/**
 * A file as the batch source read it: its path and whole content. Files are read whole because a
 * document (a PDF above all) can only be understood whole; {@link #unreadable} says why a file's
 * bytes could not be read at all, so it still becomes an error row instead of failing the job.
 */
public class DocumentFile {
    /** The file's URI as the source saw it, e.g. {@code file:/data/papers/a.pdf}. */
    public String uri;

    public byte[] bytes;

    /** Why the bytes are missing (too large, unreadable), or null. */
    public String unreadable;

    public DocumentFile() {}

    public DocumentFile(String uri, byte[] bytes, String unreadable) {
        this.uri = uri;
        this.bytes = bytes;
        this.unreadable = unreadable;
    }
}
