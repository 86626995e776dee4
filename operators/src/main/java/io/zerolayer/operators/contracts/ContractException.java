package io.zerolayer.operators.contracts;

/** tasks.yaml is malformed; the message names the key and what it expected. */
public class ContractException extends IllegalArgumentException {
    public ContractException(String message) {
        super(message);
    }

    public ContractException(String message, Throwable cause) {
        super(message, cause);
    }
}
