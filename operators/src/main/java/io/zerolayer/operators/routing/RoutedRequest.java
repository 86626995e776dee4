package io.zerolayer.operators.routing;

import io.zerolayer.operators.compiler.RequestDecision;
import io.zerolayer.operators.kafka.ReplyRoute;
import io.zerolayer.schemas.AnalysisRequest;

/**
 * A decoded request with what the classifier decided of it, on its way to the executor slot that
 * owns its graph. Immutable: the executor adds its own marks by {@link #queued}, making a new one.
 * Flink serializes it with the job's own serializer ({@code flink.RoutedRequestSerializer}),
 * compactly: a request's text runs cross as spans of its prompt, which the record carries once.
 *
 * @param decision its graph, contracts, structure, content and estimate ({@link RequestDecision})
 * @param shardKey what the executor is keyed by: the graph id plus a shard salt (the job's
 *     hot-graph sharding)
 * @param classifyMicros how long reading and type-checking it took
 * @param receivedAtMillis wall clock when the record was decoded, for end-to-end latency
 * @param queuedAtMillis wall clock when the executor queued it for its micro-batch (0 if it ran at
 *     once)
 * @param compileMicros time the executor spent compiling its graph when it arrived (0: warm)
 */
public record RoutedRequest(
        AnalysisRequest request,
        ReplyRoute route,
        RequestDecision decision,
        String shardKey,
        long classifyMicros,
        long receivedAtMillis,
        long queuedAtMillis,
        long compileMicros) {

    /** A request as the classifier routes it, not yet queued. */
    public static RoutedRequest routed(
            AnalysisRequest request,
            ReplyRoute route,
            RequestDecision decision,
            String shardKey,
            long classifyMicros,
            long receivedAtMillis) {
        return new RoutedRequest(
                request, route, decision, shardKey, classifyMicros, receivedAtMillis, 0, 0);
    }

    /** This request as the executor queued it at {@code atMillis}, its graph compiled in that. */
    public RoutedRequest queued(long atMillis, long compileMicrosOnArrival) {
        return new RoutedRequest(
                request,
                route,
                decision,
                shardKey,
                classifyMicros,
                receivedAtMillis,
                atMillis,
                compileMicrosOnArrival);
    }

    /** The id of its structure: what its prompt looked like. */
    public String structureId() {
        return decision.structureId();
    }

    /** Served by the SAFE graph because its structure is abnormal; the warnings say why. */
    public boolean safeMode() {
        return decision.safeMode();
    }
}
