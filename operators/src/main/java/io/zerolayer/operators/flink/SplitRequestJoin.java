package io.zerolayer.operators.flink;

import io.zerolayer.operators.replies.Reply;
import io.zerolayer.operators.replies.SplitReplies;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Joins the parts of a split request back into its one reply: keyed by the request (its tenant, id
 * and position in the requests topic), each part's reply waits in keyed state until the last one
 * arrives, then {@link SplitReplies} combines them and the state is cleared. The state is in every
 * checkpoint, so a restore neither loses a part that arrived nor answers a request twice; a part
 * replayed after a restore replaces its earlier copy.
 */
public final class SplitRequestJoin extends KeyedProcessFunction<String, Reply, Reply> {
    private static final Logger LOG = LoggerFactory.getLogger(SplitRequestJoin.class);

    /** What the join is keyed by: one consumed request record. */
    public static final KeySelector<Reply, String> KEY =
            r ->
                    r.response.getTenantId()
                            + "\n"
                            + r.response.getRequestId()
                            + "\n"
                            + r.route.sourceTopic
                            + "/"
                            + r.route.sourcePartition
                            + "@"
                            + r.route.sourceOffset;

    private transient MapState<Integer, Reply> parts;
    private transient Counter joined;

    @Override
    public void open(OpenContext context) {
        parts =
                getRuntimeContext()
                        .getMapState(
                                new MapStateDescriptor<>(
                                        "split-request-parts",
                                        Types.INT,
                                        TypeInformation.of(Reply.class)));
        joined = getRuntimeContext().getMetricGroup().counter("split_requests_joined_total");
    }

    @Override
    public void processElement(Reply part, Context ctx, Collector<Reply> out) throws Exception {
        parts.put(part.part.index, part);
        List<Reply> arrived = new ArrayList<>();
        parts.values().forEach(arrived::add);
        if (arrived.size() < part.part.count) {
            return;
        }
        parts.clear();
        Reply whole;
        try {
            whole = SplitReplies.combine(arrived);
        } catch (RuntimeException e) {
            // whatever the parts hold, the request is answered, never dropped
            LOG.warn(
                    "Parts of request {} cannot be combined; answering it FAILED",
                    part.response.getRequestId(),
                    e);
            whole = SplitReplies.failed(arrived, e);
        }
        joined.inc();
        out.collect(whole);
    }
}
