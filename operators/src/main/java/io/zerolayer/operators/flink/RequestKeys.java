package io.zerolayer.operators.flink;

import io.zerolayer.operators.kafka.RawRecord;
import io.zerolayer.operators.kafka.ReplyRoute;
import io.zerolayer.schemas.serde.ClaimedIds;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.java.functions.KeySelector;

/**
 * Sets each raw record's {@link RawRecord#requestKey} to the tenant and request id it claims, so
 * that {@link DecodeAndClassifyFunction} sees every copy of one request id in one subtask, whatever
 * partition a copy was written to. Nothing is verified or refused here: a record whose ids cannot
 * be read is keyed by its position, to spread junk evenly, and dead-lettered after the key-by.
 *
 * <p>Only the two ids are read ({@link ClaimedIds}), not the request: a prompt of tens of megabytes
 * is decoded once, by the classifier.
 */
public final class RequestKeys implements MapFunction<RawRecord, RawRecord> {
    private static final long serialVersionUID = 1L;

    /** Keys the job by {@link RawRecord#requestKey}. */
    public static final KeySelector<RawRecord, String> KEY = r -> r.requestKey;

    @Override
    public RawRecord map(RawRecord raw) {
        raw.requestKey = key(raw);
        return raw;
    }

    /** The key of a record: never fails, whatever its bytes. */
    static String key(RawRecord raw) {
        byte[] value = raw.value == null ? new byte[0] : raw.value;
        String[] ids = ClaimedIds.of(value, ReplyRoute.isJson(raw));
        if (ids != null) {
            // length-prefixed: no tenant/request pair can take another pair's key
            return ids[0].length() + ":" + ids[0] + "/" + ids[1];
        }
        return "?" + raw.partition + "/" + raw.offset;
    }
}
