package io.zerolayer.schemas.serde;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import io.zerolayer.schemas.AnalysisRequest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The tenant and request id a request's bytes claim, read without decoding the request: the job
 * keys records by them before anything is verified, and a client signs with them. In Avro they are
 * the first two fields of the current schema (an older writer's record is decoded whole); in JSON
 * the streaming parser skips every other value, and a repeated field counts last, as the job's
 * decoder counts it. Nothing here fails on hostile bytes: what cannot be read is null.
 */
public final class ClaimedIds {
    private static final JsonFactory JSON =
            JsonFactory.builder()
                    .streamReadConstraints(
                            StreamReadConstraints.builder()
                                    .maxStringLength(JsonCodec.MAX_STRING_CHARS)
                                    .build())
                    .build();

    private static final SingleObjectCodec<AnalysisRequest> CODEC =
            SingleObjectCodec.of(AnalysisRequest.class);

    private ClaimedIds() {}

    /**
     * {tenantId, requestId} of a request's bytes (Avro single-object encoding, or JSON when {@code
     * json}), or null when they cannot be read.
     */
    public static String[] of(byte[] value, boolean json) {
        try {
            return json ? jsonIds(value) : avroIds(value, CODEC);
        } catch (IOException | RuntimeException | StackOverflowError unreadable) {
            return null;
        }
    }

    /** {tenantId, requestId} of an Avro single-object request, or null. */
    private static String[] avroIds(byte[] value, SingleObjectCodec<AnalysisRequest> codec)
            throws IOException {
        if (value.length < 10 || value[0] != (byte) 0xC3 || value[1] != 0x01) {
            return null;
        }
        long fingerprint = ByteBuffer.wrap(value, 2, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
        if (fingerprint != codec.fingerprint()) {
            AnalysisRequest r = codec.decode(value); // an older writer: resolved whole
            return new String[] {r.getTenantId(), r.getRequestId()};
        }
        int[] at = {10};
        String requestId = avroString(value, at);
        String tenantId = avroString(value, at);
        return requestId == null || tenantId == null ? null : new String[] {tenantId, requestId};
    }

    /**
     * The Avro string at {@code at[0]} (a zig-zag varint length, then UTF-8), moving past it; null
     * when its length is negative or runs past the bytes: a hostile length allocates nothing.
     */
    private static String avroString(byte[] bytes, int[] at) {
        long raw = 0;
        int shift = 0;
        int i = at[0];
        while (true) {
            if (i >= bytes.length || shift > 63) {
                return null;
            }
            byte b = bytes[i++];
            raw |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                break;
            }
            shift += 7;
        }
        long length = (raw >>> 1) ^ -(raw & 1);
        if (length < 0 || length > bytes.length - i) {
            return null;
        }
        at[0] = i + (int) length;
        return new String(bytes, i, (int) length, java.nio.charset.StandardCharsets.UTF_8);
    }

    /** {tenantId, requestId} of a JSON request's top-level text fields, or null. */
    private static String[] jsonIds(byte[] value) throws IOException {
        String tenant = null;
        String request = null;
        try (JsonParser p = JSON.createParser(value)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken v = p.nextToken();
                if (v == JsonToken.VALUE_STRING && field.equals("tenantId")) {
                    tenant = p.getText();
                } else if (v == JsonToken.VALUE_STRING && field.equals("requestId")) {
                    request = p.getText();
                } else {
                    p.skipChildren(); // a string's text is skipped unread
                }
            }
        }
        return tenant == null || request == null ? null : new String[] {tenant, request};
    }
}
