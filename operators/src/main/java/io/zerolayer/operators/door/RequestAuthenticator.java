package io.zerolayer.operators.door;

import io.zerolayer.operators.door.UnauthenticatedRequestException.Reason;
import io.zerolayer.operators.kafka.RawRecord;
import io.zerolayer.operators.tenants.Tenant;
import io.zerolayer.operators.tenants.TenantKey;
import io.zerolayer.operators.tenants.TenantRegistry;
import io.zerolayer.schemas.ZeroLayerHeaders;
import io.zerolayer.schemas.auth.RequestSignature;
import java.io.Serializable;
import java.time.Duration;

/**
 * Verifies who sent a request: its {@code x-zerolayer-signature} must be the HMAC-SHA256 of the
 * canonical string ({@link RequestSignature}) under an active key of the tenant it names, and its
 * {@code x-zerolayer-timestamp} within the allowed skew of the time the record reached Kafka.
 *
 * <p>That time is the broker's when the topic stamps records on append ({@code
 * message.timestamp.type=LogAppendTime}, as the job creates its requests topic): a backlog after an
 * outage then does not age signed requests, and no producer can choose it. With producer-set
 * timestamps, which a sender controls, the job's own clock is used instead.
 *
 * <p>The replay check (a request id seen before) needs keyed state and is the caller's: the
 * classifier remembers verified ids for {@link #replayWindow()}.
 */
public final class RequestAuthenticator implements Serializable {
    private static final long serialVersionUID = 1L;

    private final Duration maxSkew;

    /**
     * @param maxSkew how far a signature's timestamp may be from the record's arrival, either way
     */
    public RequestAuthenticator(Duration maxSkew) {
        if (maxSkew.isNegative() || maxSkew.isZero()) {
            throw new IllegalArgumentException("The allowed clock skew must be positive");
        }
        this.maxSkew = maxSkew;
    }

    /**
     * How long a verified request id is remembered: twice the skew, since a signature is accepted
     * from {@code skew} before to {@code skew} after its timestamp; an older copy fails the skew
     * check instead.
     */
    public Duration replayWindow() {
        return maxSkew.multipliedBy(2);
    }

    /**
     * Verifies a decoded request's record.
     *
     * @param now the job's clock, epoch ms
     * @return the key that signed it
     * @throws UnauthenticatedRequestException saying why it is refused
     */
    public TenantKey verify(
            RawRecord raw, String tenantId, String requestId, TenantRegistry registry, long now) {
        String timestampText = raw.headerString(RequestSignature.TIMESTAMP_HEADER);
        String signature = raw.headerString(RequestSignature.SIGNATURE_HEADER);
        if (timestampText == null || signature == null) {
            throw new UnauthenticatedRequestException(
                    Reason.UNSIGNED,
                    "the record has no "
                            + (signature == null
                                    ? RequestSignature.SIGNATURE_HEADER
                                    : RequestSignature.TIMESTAMP_HEADER)
                            + " header; sign requests as docs/tenants.md says");
        }
        long timestamp;
        try {
            timestamp = Long.parseLong(timestampText.strip());
        } catch (NumberFormatException e) {
            throw new UnauthenticatedRequestException(
                    Reason.UNSIGNED,
                    RequestSignature.TIMESTAMP_HEADER
                            + " '"
                            + InvalidRequestException.excerpt(timestampText)
                            + "' is not epoch milliseconds");
        }
        if (requestId.chars().anyMatch(Character::isISOControl)) {
            throw new UnauthenticatedRequestException(
                    Reason.UNSIGNED,
                    "the requestId holds a control character, which the canonical string cannot"
                            + " carry unambiguously");
        }
        Tenant tenant =
                registry.tenant(tenantId)
                        .orElseThrow(
                                () ->
                                        new UnauthenticatedRequestException(
                                                Reason.UNKNOWN_TENANT,
                                                "tenant '"
                                                        + InvalidRequestException.excerpt(tenantId)
                                                        + "' is not in the tenants file"));
        String canonical =
                RequestSignature.canonical(
                        tenantId,
                        requestId,
                        timestamp,
                        raw.headerString(ZeroLayerHeaders.REPLY_TOPIC),
                        raw.value);
        TenantKey key =
                tenant.keyThatSigned(k -> RequestSignature.verifies(k, canonical, signature));
        if (key == null) {
            throw new UnauthenticatedRequestException(
                    Reason.BAD_SIGNATURE,
                    "the signature is not tenant '"
                            + tenantId
                            + "''s over this record (its value, requestId, timestamp and"
                            + " kafka_replyTopic)");
        }
        // after the signature: a forger learns nothing from which check failed first
        long reference = raw.logAppendTime ? raw.timestamp : now;
        long skew = Math.abs(reference - timestamp);
        if (skew > maxSkew.toMillis()) {
            throw new UnauthenticatedRequestException(
                    Reason.CLOCK_SKEW,
                    "signed at "
                            + timestamp
                            + ", "
                            + skew
                            + " ms from "
                            + (raw.logAppendTime ? "the record's append time" : "the job's clock")
                            + "; at most "
                            + maxSkew.toMillis()
                            + " ms (zerolayer.auth.max-clock-skew) are accepted");
        }
        return key;
    }
}
