package io.zerolayer.operators.door;

/**
 * A request that decoded but cannot be served as sent: a header or field outside what the job
 * accepts (an illegal or forbidden reply topic, a timestamp out of range, an oversize id). Such a
 * request goes to the dead-letter topic with this exception's message as the reason.
 */
public class InvalidRequestException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** How much of a hostile value a message quotes. */
    private static final int EXCERPT_CHARS = 80;

    public InvalidRequestException(String message) {
        super(message);
    }

    /** The start of a value, to quote it in a message without copying megabytes. */
    public static String excerpt(String value) {
        return value.length() <= EXCERPT_CHARS
                ? value
                : value.substring(0, EXCERPT_CHARS) + "… (" + value.length() + " chars)";
    }
}
