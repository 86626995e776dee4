package io.zerolayer.schemas.serde;

/** A Kafka record whose bytes cannot be turned into the expected type; it goes to dead letters. */
public class UndecodableRecordException extends RuntimeException {
    public UndecodableRecordException(String message) {
        super(message);
    }

    public UndecodableRecordException(String message, Throwable cause) {
        super(message, cause);
    }
}
