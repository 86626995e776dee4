package io.zerolayer.operators.kafka;

/** A record the job could not serve, kept byte for byte, with why. */
public class DeadLetter {
    /** Longest exception message a dead letter carries; a message may quote hostile input. */
    public static final int MAX_MESSAGE_CHARS = 4096;

    public RawRecord original;
    public String exceptionClass;
    public String exceptionMessage;

    public DeadLetter() {}

    public DeadLetter(RawRecord original, Throwable cause) {
        this.original = original;
        this.exceptionClass = cause.getClass().getName();
        String message = String.valueOf(cause.getMessage());
        this.exceptionMessage =
                message.length() <= MAX_MESSAGE_CHARS
                        ? message
                        : message.substring(0, MAX_MESSAGE_CHARS)
                                + "… ("
                                + message.length()
                                + " chars)";
    }
}
