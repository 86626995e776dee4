package io.zerolayer.operators.flink;

/** An undecodable record, kept byte for byte, with why it could not be decoded. */
public class DeadLetter {
    public RawRecord original;
    public String exceptionClass;
    public String exceptionMessage;

    public DeadLetter() {}

    public DeadLetter(RawRecord original, Throwable cause) {
        this.original = original;
        this.exceptionClass = cause.getClass().getName();
        this.exceptionMessage = String.valueOf(cause.getMessage());
    }
}
