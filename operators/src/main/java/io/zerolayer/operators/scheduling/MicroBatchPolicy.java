package io.zerolayer.operators.scheduling;

import io.zerolayer.operators.execution.CompiledGraph;
import io.zerolayer.operators.execution.ComplianceMode;
import io.zerolayer.operators.execution.EmbeddingCache;
import io.zerolayer.operators.execution.ExecutionSettings;
import io.zerolayer.operators.routing.RoutedRequest;
import io.zerolayer.schemas.AnalysisRequest;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * When an executor slot runs a key's requests, and how: the micro-batch size and queue delay of a
 * graph, what an arriving request does (run now, wait for companions, wait behind the key's running
 * batch, or hold the input back when the key's queue is full), how many queued requests the next
 * batch takes, and each request's compliance and pruning. Decisions only, no state and no Flink:
 * the executor function keeps the queue in keyed state and acts on them.
 */
public final class MicroBatchPolicy {
    /** Batches of a key that may queue behind its running one before the input is held back. */
    public static final int QUEUED_BATCHES_PER_KEY = 4;

    /** Compliance nodes a request can turn on by its attributes. */
    private static final List<String> COMPLIANCE_NODES = List.of("redact", "audit");

    /** What an arriving request does. */
    public enum Arrival {
        /** Runs at once in a batch of its own (and takes nothing from the queue). */
        RUN_NOW,
        /** Queued, and the queue's next batch starts at once: it is full, or the slot idles. */
        QUEUE_AND_START,
        /** Queued; the queue starts when its oldest request has waited the graph's delay. */
        QUEUE_UNTIL_DELAY,
        /** Queued behind the key's running batch; the queue starts when that one is done. */
        QUEUE_BEHIND_RUNNING,
        /**
         * Queued, and the key's queue is full: wait for the running batch, then start the queue
         * (the input is held back meanwhile: backpressure rather than a growing queue).
         */
        QUEUE_FULL
    }

    /**
     * How many times its own estimated work a request without a deadline is due after it arrived.
     * Short requests are so due soon, long documents later; a document waiting behind ever new
     * short requests is still due at a fixed time, and is not passed by those that arrive after it
     * has waited that long.
     */
    static final int STRETCH = 16;

    private final ExecutionSettings execution;

    /** The compliance level the tenant registry gives a tenant, or null (none registered). */
    private final Function<String, ComplianceMode> registered;

    public MicroBatchPolicy(ExecutionSettings execution) {
        this(execution, tenant -> null);
    }

    public MicroBatchPolicy(
            ExecutionSettings execution, Function<String, ComplianceMode> registered) {
        this.execution = execution;
        this.registered = registered;
    }

    /** A request's compliance level: its tenant's, or higher when it asks. */
    ComplianceMode compliance(AnalysisRequest request) {
        return execution.complianceOf(
                request.getTenantId(),
                request.getAttributes(),
                registered.apply(request.getTenantId()));
    }

    /** The micro-batch size of a graph: the plan's, unless the settings replace it. */
    public int batchSize(CompiledGraph graph) {
        return execution.batchSize() > 0 ? execution.batchSize() : graph.plan().batchSize();
    }

    /**
     * How long a graph's first queued request waits for companions: the plan's queue delay (its
     * run-alone estimate), capped by the settings' max-queue-delay.
     */
    public long queueDelayMillis(CompiledGraph graph) {
        long alone = graph.plan().encodeMillisAlone();
        long cap = execution.maxQueueDelayMillis();
        return alone <= 0 ? cap : Math.min(cap, alone);
    }

    /**
     * What a request arriving for a key does.
     *
     * @param waiting requests of the key already queued
     * @param busy the key has a batch running on the slot's inference thread
     * @param idle nothing on the slot's inference thread runs before this request (it is idle, or
     *     what it runs is due later and lets this request in between its slices): waiting for
     *     companions would only delay it, and requests that come while this one runs form the next
     *     batch
     */
    public Arrival onArrival(
            AnalysisRequest request, int batchSize, int waiting, boolean busy, boolean idle) {
        // strict compliance runs each request alone: no batch companions, the same output
        if (!busy && (((batchSize <= 1 || idle) && waiting == 0) || strict(request))) {
            return Arrival.RUN_NOW;
        }
        int queued = waiting + 1;
        if (busy) {
            return queued >= QUEUED_BATCHES_PER_KEY * batchSize
                    ? Arrival.QUEUE_FULL
                    : Arrival.QUEUE_BEHIND_RUNNING;
        }
        return queued >= batchSize || idle ? Arrival.QUEUE_AND_START : Arrival.QUEUE_UNTIL_DELAY;
    }

    /** How many of the {@code waiting} queued requests the next batch takes. */
    public static int take(int waiting, Integer limit) {
        return Math.min(waiting, limit == null ? waiting : Math.max(1, limit));
    }

    public boolean strict(AnalysisRequest request) {
        return compliance(request) == ComplianceMode.STRICT;
    }

    /**
     * Whether a request runs in a batch of its own however its batch formed (a restore's in-flight
     * requests joining the next batch included): strict ones, and all when the batch size is 1, so
     * that each is billed alone.
     */
    boolean runsAlone(AnalysisRequest request) {
        return strict(request) || execution.batchSize() == 1;
    }

    /**
     * How a request runs: strict compliance (level 3) forces every compliance node on and never
     * prunes; audited (level 2) forces them on and prunes other optional nodes under memory
     * pressure; standard runs the compliance nodes the request asks for ({@code redact=true},
     * {@code audit=true}) and prunes.
     */
    CompiledGraph.RunMode modeOf(AnalysisRequest request, boolean prune) {
        ComplianceMode level = compliance(request);
        String cacheScope =
                embeddings.scopeOf(request.getTenantId(), level == ComplianceMode.STRICT);
        if (level == ComplianceMode.STRICT) {
            return new CompiledGraph.RunMode(false, Set.copyOf(COMPLIANCE_NODES), cacheScope);
        }
        if (level == ComplianceMode.AUDITED) {
            return new CompiledGraph.RunMode(prune, Set.copyOf(COMPLIANCE_NODES), cacheScope);
        }
        Map<String, String> attributes = request.getAttributes();
        Set<String> on = new HashSet<>();
        for (String node : COMPLIANCE_NODES) {
            if (attributes != null && "true".equalsIgnoreCase(attributes.get(node))) {
                on.add(node);
            }
        }
        return new CompiledGraph.RunMode(prune, on, cacheScope);
    }

    private EmbeddingCache.Settings embeddings = EmbeddingCache.Settings.OFF;

    /** Requests share encoded sequences through the embedding cache as {@code settings} say. */
    public MicroBatchPolicy withEmbeddingCache(EmbeddingCache.Settings settings) {
        this.embeddings = settings;
        return this;
    }

    /**
     * When a batch should be done, in epoch milliseconds: the earliest of its requests' due times,
     * a request being due at its own {@code deadline} or, without one, {@link #STRETCH} times its
     * estimated encode time after it arrived, whichever comes first. The slot's inference thread
     * runs the waiting batch due first, and lets one due before the running batch run between that
     * batch's slices: earliest deadline first over deadlines that are the requests' own or follow
     * from their size (so, without deadlines, shortest work first among requests that arrived
     * together, and no long document passed over for ever).
     */
    static long due(List<RoutedRequest> batch) {
        long due = Long.MAX_VALUE;
        for (RoutedRequest r : batch) {
            long own =
                    r.receivedAtMillis() + STRETCH * Math.max(1, r.decision().encodeMillisAlone());
            java.time.Instant deadline = r.request().getDeadline();
            if (deadline != null) {
                own = Math.min(own, deadline.toEpochMilli());
            }
            due = Math.min(due, own);
        }
        return due;
    }
}
