package io.zerolayer.operators.flink;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import io.zerolayer.operators.kafka.RawRecord;
import io.zerolayer.operators.kafka.ReplyRoute;
import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.serde.JsonCodec;
import io.zerolayer.schemas.serde.SingleObjectCodec;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.java.functions.KeySelector;

/**
 * Sets each raw record's {@link RawRecord#requestKey} to the tenant and request id it claims, so
 * that {@link DecodeAndClassifyFunction} sees every copy of one request id in one subtask, whatever
 * partition a copy was written to. Nothing is verified or refused here: a record whose ids cannot
 * be read is keyed by its position, to spread junk evenly, and dead-lettered after the key-by.
 *
 * <p>Only the two ids are read, not the request: a prompt of tens of megabytes is decoded once, by
 * the classifier. In Avro they are the first two fields of the current schema (an older writer's
 * record is decoded whole); in JSON the streaming parser skips every other value, and a repeated
 * field counts last, as the classifier's decoder counts it.
 */
public final class RequestKeys extends RichMapFunction<RawRecord, RawRecord> {
    private static final long serialVersionUID = 1L;

    /** Keys the job by {@link RawRecord#requestKey}. */
    public static final KeySelector<RawRecord, String> KEY = r -> r.requestKey;

    private static final JsonFactory JSON =
            JsonFactory.builder()
                    .streamReadConstraints(
                            StreamReadConstraints.builder()
                                    .maxStringLength(JsonCodec.MAX_STRING_CHARS)
                                    .build())
                    .build();

    private transient SingleObjectCodec<AnalysisRequest> codec;

    @Override
    public void open(OpenContext context) {
        codec = SingleObjectCodec.of(AnalysisRequest.class);
    }

    @Override
    public RawRecord map(RawRecord raw) {
        raw.requestKey = key(raw, codec);
        return raw;
    }

    /** The key of a record: never fails, whatever its bytes. */
    static String key(RawRecord raw, SingleObjectCodec<AnalysisRequest> codec) {
        try {
            byte[] value = raw.value == null ? new byte[0] : raw.value;
            String[] ids = ReplyRoute.isJson(raw) ? jsonIds(value) : avroIds(value, codec);
            if (ids != null) {
                // length-prefixed: no tenant/request pair can take another pair's key
                return ids[0].length() + ":" + ids[0] + "/" + ids[1];
            }
        } catch (IOException | RuntimeException | StackOverflowError unreadable) {
            // keyed by position below
        }
        return "?" + raw.partition + "/" + raw.offset;
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

    /**
     * The {tenantId, requestId} a request's bytes claim, read as {@link #key} reads them (Avro, or
     * JSON when {@code json}), or null: for a client or test that signs records it did not build.
     */
    public static String[] claimedIds(
            byte[] value, boolean json, SingleObjectCodec<AnalysisRequest> codec) {
        try {
            return json ? jsonIds(value) : avroIds(value, codec);
        } catch (IOException | RuntimeException | StackOverflowError unreadable) {
            return null;
        }
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
