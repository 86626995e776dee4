package io.zerolayer.operators.documents;

/**
 * A file that cannot be read as the format its name says (not UTF-8, a damaged or encrypted PDF, no
 * text at all). {@code zerolayer analyze} turns it into an error row naming the file and this
 * message, and goes on with the other files.
 */
public class UnreadableDocumentException extends Exception {
    public UnreadableDocumentException(String message) {
        super(message);
    }

    public UnreadableDocumentException(String message, Throwable cause) {
        super(message, cause);
    }
}
