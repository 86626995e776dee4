package io.zerolayer.operators.flink;

import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.ZeroLayerHeaders;
import io.zerolayer.schemas.serde.JsonCodec;
import io.zerolayer.schemas.serde.SingleObjectCodec;
import java.time.Instant;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.java.functions.KeySelector;

/**
 * Sets each raw record's {@link RawRecord#requestKey} to the tenant and request id it claims, so
 * that {@link DecodeAndClassifyFunction} sees every copy of one request id in one subtask, whatever
 * partition a copy was written to. Nothing is verified or refused here: a record that does not
 * decode is keyed by its position, to spread junk evenly, and dead-lettered after the key-by.
 */
public final class RequestKeys extends RichMapFunction<RawRecord, RawRecord> {
    private static final long serialVersionUID = 1L;

    /** Keys the job by {@link RawRecord#requestKey}. */
    public static final KeySelector<RawRecord, String> KEY = r -> r.requestKey;

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
            String contentType = raw.headerString(ZeroLayerHeaders.CONTENT_TYPE);
            boolean json =
                    contentType != null
                            && contentType
                                    .toLowerCase(java.util.Locale.ROOT)
                                    .startsWith(ZeroLayerHeaders.JSON);
            byte[] value = raw.value == null ? new byte[0] : raw.value;
            AnalysisRequest request =
                    json
                            ? JsonCodec.readRequest(value, Instant.ofEpochMilli(raw.timestamp))
                            : codec.decode(value);
            String tenant = String.valueOf(request.getTenantId());
            // length-prefixed: no tenant/request pair can take another pair's key
            return tenant.length() + ":" + tenant + "/" + request.getRequestId();
        } catch (RuntimeException | StackOverflowError undecodable) {
            return "?" + raw.partition + "/" + raw.offset;
        }
    }
}
