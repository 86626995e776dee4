package io.zerolayer.operators.kafka;

import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.serde.JsonCodec;
import io.zerolayer.schemas.serde.SingleObjectCodec;
import java.time.Instant;

/**
 * Decodes a request record's value in the format its route says: JSON ({@code content-type:
 * application/json}) or an Avro single-object message. The one place a request's bytes are decoded:
 * the job does it once per record, where it is classified, and counts it.
 */
public final class RequestDecoding {
    private final SingleObjectCodec<AnalysisRequest> codec =
            SingleObjectCodec.of(AnalysisRequest.class);
    private long decoded;

    /**
     * The request {@code raw} holds.
     *
     * @throws RuntimeException when its bytes are not a request in that format
     */
    public AnalysisRequest decode(RawRecord raw, ReplyRoute route) {
        decoded++;
        return route.json
                ? JsonCodec.readRequest(
                        raw.value == null ? new byte[0] : raw.value,
                        Instant.ofEpochMilli(raw.timestamp))
                : codec.decode(raw.value);
    }

    /** How many records this decoder was given. */
    public long decoded() {
        return decoded;
    }
}
