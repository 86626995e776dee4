package io.zerolayer.operators.flink;

import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.Diagnostic;
import java.util.ArrayList;
import java.util.List;

/** A decoded, classified request on its way to the executor that owns its graph id. */
public class RoutedRequest {
    public AnalysisRequest request;

    /**
     * Hash of the structure and contracts, without hardware: what routing is keyed on. The executor
     * adds its slot's hardware profile to get the graph id it compiles and reports.
     */
    public String structureId;

    /** What the executor is keyed by: the structure id plus a shard salt (see HotGraphSharder). */
    public String shardKey;

    public ReplyRoute route;
    public long classifyMicros;

    /** Wall clock when the record was decoded, for end-to-end latency. */
    public long receivedAtMillis;

    /** Wall clock when the executor queued it for its micro-batch (0 if it ran at once). */
    public long queuedAtMillis;

    /** Time the executor spent compiling its graph when it arrived (0: the graph was warm). */
    public long compileMicros;

    /** Served by the SAFE graph because its structure is abnormal; {@link #diagnostics} say why. */
    public boolean safeMode;

    public List<Diagnostic> diagnostics = new ArrayList<>();

    public RoutedRequest() {}
}
