package io.zerolayer.operators.door;

import java.util.Locale;

/**
 * A request whose sender could not be verified ({@link RequestAuthenticator}): it is dead-lettered
 * with this message, never executed, billed or replied to.
 */
public class UnauthenticatedRequestException extends InvalidRequestException {
    private static final long serialVersionUID = 1L;

    /** Why a request was refused; the metric label and the start of the dead letter's message. */
    public enum Reason {
        /** No signature or timestamp header, or one that is not what the format says. */
        UNSIGNED,
        /** The tenant id is not in the registry. */
        UNKNOWN_TENANT,
        /** No active key of the tenant gives the signature. */
        BAD_SIGNATURE,
        /** Signed too long before (or after) the record reached Kafka. */
        CLOCK_SKEW,
        /** The tenant's request id was seen within the replay window. */
        REPLAYED;

        /** The metric label: {@code bad-signature}. */
        public String label() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    private final Reason reason;

    public UnauthenticatedRequestException(Reason reason, String message) {
        super(reason.label() + ": " + message);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
