package io.zerolayer.operators.flink;

import io.zerolayer.operators.audit.AuditEntries;
import io.zerolayer.operators.audit.CommittedChainHeads;
import io.zerolayer.schemas.AuditEntry;
import io.zerolayer.schemas.audit.AuditChainHash;
import java.time.Instant;
import java.util.Map;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Appends level-3 responses to their tenant's audit chain, keyed by tenant id: each entry gets the
 * next sequence number and the hash of the tenant's previous entry, and its own hash over both
 * ({@link AuditChainHash}). Every {@code anchorEvery} entries, and otherwise once per {@code
 * anchorInterval} while the chain grew, an anchor record holds the chain's head.
 *
 * <p>The head (sequence, hash, what was last anchored) is keyed state, so it is in every
 * checkpoint, and the audit topic's sink is transactional: after a failure the job restores the
 * head and the entries of requests answered since are appended again from there, while the entries
 * the failed attempt wrote are aborted with their transaction. A replay therefore continues the
 * chain where the last committed entry left it and never forks it. A tenant without a head in state
 * (new to the job, or the job started without its state) continues from its last committed entry on
 * the audit topic ({@link CommittedChainHeads}).
 */
public class AuditChainFunction extends KeyedProcessFunction<String, AuditEntry, AuditEntry> {
    private static final org.slf4j.Logger LOG =
            org.slf4j.LoggerFactory.getLogger(AuditChainFunction.class);

    /** A tenant's chain head, and when its chain was last anchored. */
    public static class Head {
        public long sequence;
        public String hash = AuditChainHash.GENESIS;
        public long anchoredSequence;

        /** When the pending anchor timer fires; 0 for none. */
        public long anchorTimer;

        public Head() {}
    }

    private final int anchorEvery;
    private final long anchorIntervalMillis;
    private final CommittedChainHeads committed;

    private transient ValueState<Head> head;

    /** The audit topic's chain heads, read at the first tenant without a head in state. */
    private transient Map<String, AuditEntry> committedHeads;

    /**
     * @param anchorEvery an anchor after this many entries
     * @param anchorIntervalMillis and otherwise this long after an entry not yet anchored
     * @param committed where a chain without a head in state continues from
     */
    public AuditChainFunction(
            int anchorEvery, long anchorIntervalMillis, CommittedChainHeads committed) {
        if (anchorEvery < 1 || anchorIntervalMillis < 1) {
            throw new IllegalArgumentException(
                    "Audit anchors need a positive count and interval, got "
                            + anchorEvery
                            + " and "
                            + anchorIntervalMillis
                            + " ms");
        }
        this.anchorEvery = anchorEvery;
        this.anchorIntervalMillis = anchorIntervalMillis;
        this.committed = committed;
    }

    @Override
    public void open(OpenContext context) {
        head =
                getRuntimeContext()
                        .getState(new ValueStateDescriptor<>("audit-chain-head", Head.class));
    }

    @Override
    public void processElement(AuditEntry entry, Context ctx, Collector<AuditEntry> out)
            throws Exception {
        Head h = head.value();
        if (h == null) {
            h = committedHead(ctx.getCurrentKey());
        }
        AuditEntry linked = AuditEntries.linked(entry, h.sequence + 1, h.hash);
        out.collect(linked);
        h.sequence = linked.getSequence();
        h.hash = linked.getHash();
        if (h.sequence - h.anchoredSequence >= anchorEvery) {
            anchor(ctx.getCurrentKey(), h, ctx.timerService().currentProcessingTime(), out);
        } else if (h.anchorTimer == 0) {
            h.anchorTimer = ctx.timerService().currentProcessingTime() + anchorIntervalMillis;
            ctx.timerService().registerProcessingTimeTimer(h.anchorTimer);
        }
        head.update(h);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<AuditEntry> out)
            throws Exception {
        Head h = head.value();
        if (h == null || h.anchorTimer != timestamp) {
            return;
        }
        h.anchorTimer = 0;
        if (h.sequence > h.anchoredSequence) {
            anchor(ctx.getCurrentKey(), h, timestamp, out);
        }
        head.update(h);
    }

    /**
     * The head of a tenant's chain that state holds none of: the entry its chain ended at on the
     * audit topic, else the start. State holds a head for every tenant this job's state lineage
     * ever appended for, so this is a tenant new to the job, or a job started without its state.
     */
    private Head committedHead(String tenant) {
        if (committedHeads == null) {
            committedHeads = committed.read();
        }
        Head h = new Head();
        AuditEntry last = committedHeads.get(tenant);
        if (last != null) {
            h.sequence = last.getSequence();
            h.hash = last.getHash();
            h.anchoredSequence = last.getSequence();
            LOG.info(
                    "Audit chain of tenant {} continues from its committed entry {}, not in state",
                    tenant,
                    last.getSequence());
        }
        return h;
    }

    private static void anchor(String tenant, Head h, long now, Collector<AuditEntry> out) {
        out.collect(AuditEntries.anchor(tenant, h.sequence, h.hash, Instant.ofEpochMilli(now)));
        h.anchoredSequence = h.sequence;
    }
}
