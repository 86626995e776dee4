package io.zerolayer.operators.flink;

import io.zerolayer.operators.audit.AuditEntries;
import io.zerolayer.operators.contracts.TaskContracts;
import io.zerolayer.operators.door.TenantsInForce;
import io.zerolayer.operators.execution.InferenceThread;
import io.zerolayer.operators.execution.SliceBoundary;
import io.zerolayer.operators.execution.SlotGraphs;
import io.zerolayer.operators.execution.WarmGraphCache;
import io.zerolayer.operators.prompt.PromptDiagnostic;
import io.zerolayer.operators.replies.Reply;
import io.zerolayer.operators.replies.Responses;
import io.zerolayer.operators.routing.RoutedRequest;
import io.zerolayer.operators.scheduling.BatchAnswers;
import io.zerolayer.operators.scheduling.ExecutorSetup;
import io.zerolayer.operators.scheduling.InjectedCrash;
import io.zerolayer.operators.scheduling.KeyBatch;
import io.zerolayer.operators.scheduling.KeyPhase;
import io.zerolayer.operators.scheduling.MicroBatchPolicy;
import io.zerolayer.operators.scheduling.SlotBatches;
import io.zerolayer.operators.scheduling.TenantShares;
import io.zerolayer.operators.tenants.TenantQuotas;
import io.zerolayer.schemas.AuditEntry;
import io.zerolayer.schemas.ExecutionGraph;
import io.zerolayer.schemas.KernelCostRecord;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.streaming.api.functions.co.KeyedBroadcastProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Executes requests keyed by shard key (graph id + shard) from what the classifier decided of each:
 * a graph is compiled for the slot's hardware on its first request and kept warm ({@link
 * WarmGraphCache}, not state: it is derived from the graph id). Requests queue per key in keyed
 * state for their micro-batch, which runs on the slot's inference thread; {@link
 * GraphExecutorOperator} answers it from the mailbox action that learns it is done. Outputs one
 * {@link Reply} per request, and as side outputs the kernels' cost records, the descriptor of each
 * graph compiled, parts of split requests and level-3 audit entries. How and why:
 * docs/execution.md.
 */
public class GraphExecutorFunction
        extends KeyedBroadcastProcessFunction<String, RoutedRequest, ControlCommand, Reply> {
    private static final Logger LOG = LoggerFactory.getLogger(GraphExecutorFunction.class);

    public static final OutputTag<KernelCostRecord> COST_RECORDS =
            new OutputTag<>("kernel-costs") {};
    public static final OutputTag<ExecutionGraph> GRAPH_DESCRIPTORS =
            new OutputTag<>("graph-descriptors") {};

    /**
     * The replies of the parts of split requests ({@link Reply#part}), for {@link SplitRequestJoin}
     * to combine into the request's one reply.
     */
    public static final OutputTag<Reply> PART_REPLIES = new OutputTag<>("part-replies") {};

    /**
     * The unlinked audit-chain entry of each level-3 request answered here (OK or FAILED; a quota
     * refusal ran nothing and has none), for {@link AuditChainFunction}.
     */
    public static final OutputTag<AuditEntry> AUDIT_ENTRIES = new OutputTag<>("audit-entries") {};

    private final ExecutorSetup setup;
    private final ContractsInForce contracts;

    /** Fault injection: fails the slot after a number of requests (tests only). */
    private transient InjectedCrash crash;

    /** How a batch on the inference thread is cut into slices, and what runs between them. */
    private transient SliceBoundary slices;

    /** The current key's queue, batch in flight and timers. */
    private transient KeyedBatchQueue keyed;

    /** The slot's inference thread, one batch per key (null: batches run on the task thread). */
    private transient InferenceThread<String, List<SlotBatches.Executed>> inference;

    /** Most padded tokens of one encoder pass that runs several keys' batches; 0: none does. */
    private long passTokens = DEFAULT_PASS_TOKENS;

    /** As TEI's default max-batch-tokens. */
    public static final long DEFAULT_PASS_TOKENS = 16_384;

    /**
     * Lets the inference thread run the waiting batches of several keys (graphs) that share an
     * encoder session in one pass, up to {@code maxTokens} padded tokens; 0: each key's batch runs
     * by itself.
     */
    public GraphExecutorFunction withPassTokens(long maxTokens) {
        if (maxTokens < 0) {
            throw new IllegalArgumentException(
                    "zerolayer.batch.max-tokens must be 0 (off) or positive, got " + maxTokens);
        }
        this.passTokens = maxTokens;
        return this;
    }

    /** When a key's requests run, and how. */
    private transient MicroBatchPolicy policy;

    private transient ExecutorMetrics metrics;

    /** The slot's hardware, sessions and warm graphs. */
    private transient SlotGraphs graphs;

    /** Applies the control topic's commands. */
    private transient ControlCommands commands;

    /** Binds, runs and answers the slot's batches. */
    private transient SlotBatches batches;

    /** The tenants whose quotas this slot enforces; null: no quotas (fair shares still apply). */
    private TenantsInForce tenants;

    /** What each tenant holds of the slot, and the order that gives each its share. */
    private transient TenantShares shares;

    public GraphExecutorFunction(ExecutorSetup setup) {
        this.setup = setup;
        this.contracts = new ContractsInForce(setup.contractsYaml(), setup.contractsFile());
    }

    /**
     * Enforces the quotas of the tenants in the tenants file ({@code file}) or a registry of the
     * job's own making ({@code inlineYaml}); without, there are no quotas.
     */
    public GraphExecutorFunction withTenants(String file, String inlineYaml) {
        this.tenants = new TenantsInForce(file, inlineYaml);
        return this;
    }

    /** How slots share encoded sequences through their TaskManager's embedding cache. */
    private io.zerolayer.operators.execution.EmbeddingCache.Settings embeddingCache =
            io.zerolayer.operators.execution.EmbeddingCache.Settings.OFF;

    /**
     * Reads and fills the TaskManager's embedding cache as {@code settings} say; without, every
     * sequence is encoded.
     */
    public GraphExecutorFunction withEmbeddingCache(
            io.zerolayer.operators.execution.EmbeddingCache.Settings settings) {
        this.embeddingCache = java.util.Objects.requireNonNull(settings, "settings");
        return this;
    }

    /** The user's encoders and quality profile, if any. */
    private io.zerolayer.operators.quality.TierSources tiers =
            io.zerolayer.operators.quality.TierSources.SHIPPED;

    /**
     * Compiles and runs with the encoders and quality profile of {@code tiers}, installed at open.
     */
    public GraphExecutorFunction withTiers(io.zerolayer.operators.quality.TierSources tiers) {
        this.tiers = java.util.Objects.requireNonNull(tiers, "tiers");
        return this;
    }

    @Override
    public void open(OpenContext context) {
        tiers.install();
        ExecutorSlot slot =
                ExecutorSlot.open(
                        setup, getRuntimeContext(), contracts.initial(), embeddingCache, tenants);
        graphs = slot.graphs();
        policy = slot.policy();
        metrics = slot.metrics();
        // how many slots the executor has, from each of them: alerts compare the warm ones to it
        metrics.slots(getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks());
        batches = slot.batches();
        keyed = new KeyedBatchQueue(getRuntimeContext());
        crash = new InjectedCrash(setup.crashAfterRequests());
        commands =
                new ControlCommands(
                        "executor",
                        contracts,
                        tenants,
                        graphs::use,
                        graphs::clear,
                        getRuntimeContext().getMetricGroup());
        if (tenants != null) {
            tenants.open();
            shares = new TenantShares(tenant -> tenants.current().quotas(tenant));
        } else {
            shares = new TenantShares(tenant -> TenantQuotas.NONE);
        }
        if (setup.inferenceThread()) {
            if (batchDone == null) {
                throw new IllegalStateException(
                        "Batches run on the inference thread only inside GraphExecutorOperator,"
                                + " which tells the task thread when one is done");
            }
            inference =
                    new InferenceThread<>(
                            "zerolayer-inference-"
                                    + getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(),
                            Thread.currentThread().getContextClassLoader(),
                            passTokens);
            metrics.batchesRunning(() -> inference.size());
            metrics.batchesInterleaved(inference::interleavedBatches);
            metrics.batchesJoined(inference::joinedBatches);
        }
        // the runs are cut alike on either thread, so a request's answer and bill do not depend
        // on it; only the inference thread has other batches to run between them
        slices =
                setup.sliceMillis() == 0
                        ? SliceBoundary.NONE
                        : new SliceBoundary(
                                setup.sliceMillis() * 1_000,
                                inference != null ? inference::between : () -> 0);
        int precompiled =
                graphs.precompile(
                        setup.precompile(),
                        setup.graphsTopic(),
                        id -> HotGraphSharder.ownedBy(id, getRuntimeContext().getTaskInfo()));
        // registered once open() is done: a slot reports ready only when it can serve warm
        metrics.ready(precompiled);
    }

    /** A control command that fails is logged and ignored, whatever went wrong. */
    @Override
    public void processBroadcastElement(ControlCommand command, Context ctx, Collector<Reply> out) {
        commands.apply(command, ctx.getBroadcastState(ControlCommand.STATE));
    }

    /**
     * Queues the request for its graph's micro-batch: the batch runs once it holds the graph's
     * batch size, or when the oldest request has waited the graph's queue delay. A batch size of 1
     * runs at once, and so does any request when the slot's inference thread has nothing to run.
     * While the key's previous batch runs on that thread, requests queue for the next, which starts
     * when it is done. The queue is keyed state, so a checkpoint holds the requests not yet
     * answered and a restore answers each exactly once.
     */
    @Override
    public void processElement(RoutedRequest in, ReadOnlyContext ctx, Collector<Reply> out)
            throws Exception {
        KeyOutput k = KeyOutput.of(ctx, out);
        TaskContracts changed = contracts.changed(ctx.getBroadcastState(ControlCommand.STATE));
        if (changed != null) {
            graphs.use(changed); // contracts reloaded before a restore
        }
        crash.request();
        PromptDiagnostic refused = shares.admit(in, System.currentTimeMillis());
        if (refused != null) {
            metrics.overQuota(in.request().getTenantId());
            k.answer(
                    in,
                    new Reply(
                            Responses.rejected(in.request(), List.of(refused), in.classifyMicros()),
                            in.route()));
            return;
        }
        if (batches.pastDeadline(in, answers(k))) {
            return;
        }
        SlotGraphs.Warm warm;
        try {
            warm = batches.warm(in, answers(k), true);
        } catch (RuntimeException e) {
            batches.failed(in, e, answers(k));
            return;
        }
        int batchSize = policy.batchSize(warm.graph());
        int waiting = keyed.waiting();
        MicroBatchPolicy.Arrival arrival =
                policy.onArrival(in.request(), batchSize, waiting, busy(k), nothingRunsBefore(in));
        if (arrival == MicroBatchPolicy.Arrival.RUN_NOW) {
            start(List.of(in), warm, k);
            return;
        }
        keyed.add(in.queued(System.currentTimeMillis(), warm.compileMicros()), batchSize);
        switch (arrival) {
            case QUEUE_FULL -> {
                awaitRunning(k);
                startQueued(k);
            }
            case QUEUE_AND_START -> startQueued(k);
            case QUEUE_UNTIL_DELAY -> {
                if (keyed.flushAt() == null) {
                    long at =
                            k.timers().currentProcessingTime()
                                    + policy.queueDelayMillis(warm.graph());
                    k.timers().registerProcessingTimeTimer(at);
                    keyed.flushAt(at);
                }
            }
            default -> {} // behind the running batch: it starts the queue when done
        }
    }

    /**
     * A flush timer: the queue's oldest request has waited its delay, so the queue's next batch
     * starts, unless the key's batch runs (it starts the queue when done).
     */
    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<Reply> out) throws Exception {
        KeyOutput k = KeyOutput.of(ctx, out);
        Long at = keyed.flushAt();
        if (at != null && at == timestamp) {
            keyed.flushAt(null);
            if (phase(k) == KeyPhase.QUEUED) {
                startQueued(k);
            }
        }
    }

    /**
     * Starts this key's next batch: up to its batch size of queued requests, after any of a batch
     * restored in flight. On the task thread, or when a batch answers all its requests at once
     * (deadlines passed), it goes on with the next until the queue is empty.
     */
    private void startQueued(KeyOutput k) throws Exception {
        Long at = keyed.flushAt();
        if (at != null) {
            k.timers().deleteProcessingTimeTimer(at);
            keyed.flushAt(null);
        }
        do {
            start(keyed.takeBatch(shares::fairOrder), null, k);
        } while (!busy(k) && keyed.waiting() > 0);
    }

    /**
     * Whether nothing on the slot's inference thread would run before {@code in}: it is idle, or,
     * with slicing on, everything it runs or holds is due later (so {@code in} runs between that
     * work's slices).
     */
    private boolean nothingRunsBefore(RoutedRequest in) {
        if (inference == null) {
            return false;
        }
        return inference.idle()
                || (slices != SliceBoundary.NONE
                        && !inference.holdsWorkDueBy(
                                shares.previewDue(List.of(in), System.currentTimeMillis())));
    }

    /** Whether this key has a batch on the inference thread, not yet answered. */
    private boolean busy(KeyOutput k) {
        return inference != null && inference.has(k.key());
    }

    /**
     * Runs a batch: on the task thread, or handed to the inference thread with its requests kept in
     * flight until {@link #emitRunning} answers them. Requests left in flight by a restore (the
     * checkpoint was taken while their batch ran) run first, again.
     */
    private void start(List<RoutedRequest> batch, SlotGraphs.Warm known, KeyOutput k)
            throws Exception {
        List<RoutedRequest> all = keyed.takeInFlight();
        if (!all.isEmpty()) {
            known = null;
            LOG.info(
                    "Running again {} requests whose batch was in flight at the checkpoint",
                    all.size());
        }
        all.addAll(batch);
        if (all.isEmpty()) {
            return;
        }
        List<SlotBatches.GraphBatch> prepared = batches.prepare(all, known, answers(k));
        if (prepared.isEmpty()) {
            return;
        }
        if (inference == null) {
            for (SlotBatches.Executed e : batches.executeTogether(prepared, slices)) {
                batches.finish(e, answers(k));
            }
            return;
        }
        List<RoutedRequest> held = new ArrayList<>();
        prepared.forEach(b -> b.bound().forEach(r -> held.add(r.in())));
        keyed.holdInFlight(held);
        inference.submit(
                k.key(),
                new KeyBatch(prepared, batches, slices),
                this::signalBatchDone,
                shares.assignDue(held, System.currentTimeMillis()));
    }

    /**
     * Set by {@link GraphExecutorOperator} before {@code open}: tells the task thread, through its
     * mailbox, that a key's batch is done. Batches run on the inference thread only inside it.
     */
    private transient java.util.function.Consumer<String> batchDone;

    void whenBatchDone(java.util.function.Consumer<String> signal) {
        this.batchDone = signal;
    }

    /** On the inference thread, when a key's batch is done. */
    private void signalBatchDone(String key) {
        try {
            batchDone.accept(key);
        } catch (RuntimeException e) {
            // the task is closing: its in-flight requests are in the last checkpoint
            LOG.debug("Batch of {} done after its task closed: {}", key, e.toString());
        }
    }

    /**
     * The key's batch on the inference thread is done (running → done): its replies go out, then
     * the key's queue starts its next batch (→ running, or idle). Called by {@link
     * GraphExecutorOperator} in the mailbox action that learns it; a signal for a batch already
     * answered (a full queue waited for it) finds nothing to do.
     */
    void batchDone(KeyOutput k) throws Exception {
        if (phase(k) == KeyPhase.DONE) {
            emitRunning(k);
            startQueued(k);
        }
    }

    /** Where the current key is ({@link KeyPhase}). */
    KeyPhase phase(KeyOutput k) throws Exception {
        boolean running = busy(k);
        return KeyPhase.of(
                running,
                running && inference.done(k.key()),
                keyed.waiting() > 0 || keyed.holdsInFlight());
    }

    /**
     * After a restore, for a key whose batch was in flight at the checkpoint: the batch runs again,
     * ahead of the key's queue.
     */
    void resume(KeyOutput k) throws Exception {
        if (phase(k) == KeyPhase.QUEUED) {
            startQueued(k);
        }
    }

    /** Waits for this key's running batch, then answers it: a full queue's backpressure. */
    private void awaitRunning(KeyOutput k) throws Exception {
        if (busy(k)) {
            emitRunning(k); // waits for it
        }
    }

    /**
     * Answers this key's batch on the task thread (waiting for it if it still runs) and releases
     * its requests from flight. A batch's exceptions are answered FAILED where it ran ({@link
     * SlotBatches#execute}); only a JVM {@link Error} reaches here and fails the task, as on the
     * task thread: Flink restores the last checkpoint and the batch runs again.
     */
    private void emitRunning(KeyOutput k) throws Exception {
        List<SlotBatches.Executed> done = inference.take(k.key());
        keyed.releaseInFlight();
        for (SlotBatches.Executed e : done) {
            batches.finish(e, answers(k));
        }
    }

    /**
     * Where a batch's answers go, through Flink's collector and side outputs: each reply releases
     * its request's place in its tenant's quota, and a level-3 request's reply is also an entry of
     * its tenant's audit chain.
     */
    private BatchAnswers.Out answers(KeyOutput k) {
        return BatchAnswers.Out.of(
                (in, reply) -> {
                    shares.answered(reply.response.getTenantId());
                    k.answer(in, reply);
                    if (policy.strict(in.request())) {
                        k.output(
                                AUDIT_ENTRIES,
                                AuditEntries.unlinked(
                                        in.request(), reply.response, in.structureId()));
                    }
                },
                cost -> k.output(COST_RECORDS, cost),
                descriptor -> k.output(GRAPH_DESCRIPTORS, descriptor));
    }

    /** Graph ids warm in this slot, most recently used last; for tests and inspection. */
    List<String> warmGraphIds() {
        return graphs.graphIds();
    }

    @Override
    public void close() throws Exception {
        boolean stopped = inference == null || inference.stop(60);
        if (!stopped) {
            // a session must not close under a running batch: its replies are not emitted, its
            // requests are in the last checkpoint's in-flight state
            LOG.warn("The inference thread did not stop within 60 s");
        }
        if (graphs != null) {
            // idle sessions wait for the next task of this job here, e.g. after a restart; ones
            // still in use are never handed to another task
            graphs.release(stopped);
        }
    }
}
