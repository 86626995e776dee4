package io.zerolayer.operators.flink;

import io.zerolayer.gpu.hardware.HardwareFingerprint;
import io.zerolayer.operators.contracts.TaskContracts;
import io.zerolayer.operators.execution.BatchRunner;
import io.zerolayer.operators.execution.CompiledGraph;
import io.zerolayer.operators.execution.EncoderPool;
import io.zerolayer.operators.execution.InferenceThread;
import io.zerolayer.operators.execution.SlotGraphs;
import io.zerolayer.operators.execution.WarmGraphCache;
import io.zerolayer.operators.prompt.PromptReader;
import io.zerolayer.operators.structure.DocumentContent;
import io.zerolayer.operators.warmup.GraphDescriptors;
import io.zerolayer.operators.warmup.PrecompileList;
import io.zerolayer.schemas.ExecutionGraph;
import io.zerolayer.schemas.KernelCostRecord;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.streaming.api.TimerService;
import org.apache.flink.streaming.api.functions.co.KeyedBroadcastProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Executes requests keyed by shard key (structure id + shard). The first request of a graph in this
 * slot compiles it for the slot's hardware and binds it to the slot's ONNX sessions; later ones
 * reuse it (a warm hit). Compiled graphs live in a {@link WarmGraphCache} (bounded by entries,
 * bytes and idle time), not in Flink state: they are derived from the graph id and the slot's
 * hardware, so after a restore they are simply compiled again.
 *
 * <p>Outputs one {@link Reply} per request (OK, or FAILED with the reason), one {@link
 * KernelCostRecord} per executed node ({@link #COST_RECORDS}) and the descriptor of each graph it
 * compiles ({@link #GRAPH_DESCRIPTORS}). Requests routed to the SAFE graph are answered with
 * fidelity SAFE_MODE and the diagnostics that sent them there. The broadcast input carries {@link
 * ControlCommand}s: {@code clear-cache} empties the cache, {@code reload-contracts} swaps the
 * contracts (and so the graph ids) without a restart.
 *
 * <p>Requests of a key queue in keyed state for their micro-batch. With {@link
 * #withInferenceThread} (the streaming job) a batch runs on the slot's inference thread while the
 * task thread goes on with new requests, barriers and commands; when the batch is done, {@link
 * GraphExecutorOperator} has the task thread emit its replies (a test harness without it polls with
 * timers), and until then its requests are in keyed state ({@code batch-in-flight}), so every
 * checkpoint holds each request not yet answered.
 */
public class GraphExecutorFunction
        extends KeyedBroadcastProcessFunction<String, RoutedRequest, ControlCommand, Reply> {
    private static final Logger LOG = LoggerFactory.getLogger(GraphExecutorFunction.class);

    public static final OutputTag<KernelCostRecord> COST_RECORDS =
            new OutputTag<>("kernel-costs") {};
    public static final OutputTag<ExecutionGraph> GRAPH_DESCRIPTORS =
            new OutputTag<>("graph-descriptors") {};

    private final ContractsInForce contracts;
    private final String hardwareSetting;
    private final String extraProfilesYaml;
    private final WarmGraphCache.Bounds cacheBounds;
    private final int intraOpThreads;
    private final PrecompileList precompile;

    /** Where to find graphs compiled before a restart; null for none. */
    private final GraphDescriptors graphsTopic;

    private final ExecutionSettings execution;

    /** What cost records are billed at; the built-in sheet unless the job sets one. */
    private io.zerolayer.operators.costs.PriceSheet prices;

    /** Fault injection: crash the task after this many requests (0: never); once per JVM. */
    private int crashAfterRequests;

    private static final java.util.concurrent.atomic.AtomicBoolean CRASHED =
            new java.util.concurrent.atomic.AtomicBoolean();

    private transient long requestsSeen;

    /** Whether an injected crash has happened in this JVM; for tests. */
    public static boolean injectedCrashHappened() {
        return CRASHED.get();
    }

    /**
     * Testing only: the executor throws out of {@code processElement} — failing the task, so Flink
     * restarts the job from its last checkpoint and replays — after {@code n} requests in a slot,
     * once per JVM, so the restarted job runs on.
     */
    public GraphExecutorFunction withCrashAfterRequests(int n) {
        this.crashAfterRequests = n;
        return this;
    }

    /** Whether micro-batches run on the slot's inference thread rather than the task thread. */
    private boolean inferenceThread;

    /**
     * Runs micro-batches on one inference thread per slot instead of the Flink task thread, so
     * checkpoint barriers, control commands and new requests are handled while a batch encodes
     * (zerolayer.execution.inference-thread; the streaming job's default). A batch's requests stay
     * in keyed state until their replies are emitted on the task thread, so a checkpoint taken
     * while it runs holds them and a restore runs them again: each is still answered once. Off,
     * batches run on the task thread (the batch job, where nothing waits on a barrier).
     */
    public GraphExecutorFunction withInferenceThread(boolean on) {
        this.inferenceThread = on;
        return this;
    }

    /** Bills this executor's cost records at {@code sheet} (zerolayer.prices.file). */
    public GraphExecutorFunction withPrices(io.zerolayer.operators.costs.PriceSheet sheet) {
        this.prices = sheet;
        return this;
    }

    /** Requests of this key waiting for their micro-batch, in arrival order. */
    private static final ListStateDescriptor<RoutedRequest> QUEUE =
            new ListStateDescriptor<>("batch-queue", RoutedRequest.class);

    /** How many requests {@link #QUEUE} holds, and when its flush timer fires (or null). */
    private static final ValueStateDescriptor<Integer> QUEUED =
            new ValueStateDescriptor<>("batch-queued", Integer.class);

    private static final ValueStateDescriptor<Long> FLUSH_AT =
            new ValueStateDescriptor<>("batch-flush-at", Long.class);

    /** The most requests the queue's next batch takes: the batch size of its graph. */
    private static final ValueStateDescriptor<Integer> BATCH_LIMIT =
            new ValueStateDescriptor<>("batch-limit", Integer.class);

    /** Requests of this key whose batch is on the inference thread, until their replies are out. */
    private static final ListStateDescriptor<RoutedRequest> IN_FLIGHT =
            new ListStateDescriptor<>("batch-in-flight", RoutedRequest.class);

    /** When the task thread next looks whether this key's batch is done (or null). */
    private static final ValueStateDescriptor<Long> POLL_AT =
            new ValueStateDescriptor<>("batch-poll-at", Long.class);

    /**
     * How soon the task thread first looks whether a running batch is done; later looks come a
     * twentieth of the batch's age apart, at most {@link #MAX_POLL_MILLIS}: a reply waits at most 5
     * % longer, and keys whose batch still waits its turn on the thread poll rarely.
     */
    static final long POLL_MILLIS = 1;

    static final long MAX_POLL_MILLIS = 5;

    private transient ListState<RoutedRequest> queue;
    private transient ValueState<Integer> queued;
    private transient ValueState<Long> flushAt;
    private transient ValueState<Integer> batchLimit;
    private transient ListState<RoutedRequest> inFlight;
    private transient ValueState<Long> pollAt;

    /** The slot's inference thread, one batch per key (null: batches run on the task thread). */
    private transient InferenceThread<String, List<Executed>> inference;

    /** When a key's requests run, and how. */
    private transient MicroBatchPolicy policy;

    /** Runs the slot's batches: main path, fallback, failures. */
    private transient BatchRunner runner;

    private transient io.zerolayer.gpu.hardware.MemoryHeadroom headroom;
    private transient ExecutorMetrics metrics;

    /** The slot's hardware, sessions and warm graphs. */
    private transient SlotGraphs graphs;

    /** Builds the slot's replies and cost records. */
    private transient ReplyAssembler replies;

    /** Answers a slot's batches and failed requests. */
    private transient BatchAnswers answers;

    public GraphExecutorFunction(
            String contractsYaml,
            String contractsFile,
            String hardwareSetting,
            String extraProfilesYaml,
            WarmGraphCache.Bounds cacheBounds,
            int intraOpThreads,
            PrecompileList precompile,
            GraphDescriptors graphsTopic,
            ExecutionSettings execution) {
        this.execution = execution;
        this.precompile = precompile;
        this.graphsTopic = graphsTopic;
        this.contracts = new ContractsInForce(contractsYaml, contractsFile);
        this.hardwareSetting = hardwareSetting;
        this.extraProfilesYaml = extraProfilesYaml;
        this.cacheBounds = cacheBounds;
        this.intraOpThreads = intraOpThreads;
    }

    private io.zerolayer.operators.costs.PriceSheet prices() {
        if (prices == null) {
            prices = io.zerolayer.operators.costs.PriceSheet.builtIn();
        }
        return prices;
    }

    /** The configuration this TaskManager started with (its config.yaml); empty where none. */
    private Configuration taskManagerConfiguration() {
        if (getRuntimeContext()
                instanceof
                org.apache.flink.streaming.api.operators.StreamingRuntimeContext streaming) {
            return streaming.getTaskManagerRuntimeInfo().getConfiguration();
        }
        return new Configuration();
    }

    @Override
    public void open(OpenContext context) {
        HardwareFingerprint hardware =
                TaskManagerHardware.resolve(
                        taskManagerConfiguration(), hardwareSetting, extraProfilesYaml);
        int slot = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        // a restarted task takes back the sessions an earlier task of this job left in this JVM;
        // they are closed when Flink releases the job's classes here
        getRuntimeContext()
                .registerUserCodeClassLoaderReleaseHookIfAbsent(
                        "zerolayer-parked-onnx-sessions", EncoderPool::closeParked);
        graphs =
                new SlotGraphs(
                        hardware,
                        intraOpThreads,
                        gpus -> {
                            var cuda =
                                    io.zerolayer.gpu.ExecutionDevice.cuda(
                                            execution.gpu().deviceFor(slot, gpus),
                                            execution.gpu().memoryLimitBytes(),
                                            execution.gpu().arenaStrategy());
                            LOG.info("Slot {} runs CUDA plans on {}", slot, cuda);
                            return cuda;
                        },
                        prices(),
                        cacheBounds,
                        contracts.initial());
        policy = new MicroBatchPolicy(execution);
        runner =
                new BatchRunner(
                        execution.mainPathTimeoutMillis(),
                        new BatchRunner.Faults(
                                execution.failMainEveryNthBatch(), execution.failFallback()));
        headroom =
                execution.injectedFreeRatio() >= 0
                        ? io.zerolayer.gpu.hardware.MemoryHeadroom.fixed(
                                execution.injectedFreeRatio())
                        : graphs.cuda() != null
                                ? io.zerolayer.gpu.hardware.MemoryHeadroom.cuda(
                                        graphs.cuda().deviceId())
                                : io.zerolayer.gpu.hardware.MemoryHeadroom.cpu();
        metrics =
                new ExecutorMetrics(
                        getRuntimeContext().getMetricGroup(), () -> graphs.size(), headroom);
        replies =
                new ReplyAssembler(
                        graphs.estimator().profile().id(),
                        headroom::describe,
                        execution.pruneBelowFreeRatio());
        answers = new BatchAnswers(replies, metrics, graphs::hardwareReport);
        queue = getRuntimeContext().getListState(QUEUE);
        queued = getRuntimeContext().getState(QUEUED);
        flushAt = getRuntimeContext().getState(FLUSH_AT);
        batchLimit = getRuntimeContext().getState(BATCH_LIMIT);
        inFlight = getRuntimeContext().getListState(IN_FLIGHT);
        pollAt = getRuntimeContext().getState(POLL_AT);
        if (inferenceThread) {
            inference =
                    new InferenceThread<>(
                            "zerolayer-inference-"
                                    + getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(),
                            Thread.currentThread().getContextClassLoader());
            metrics.batchesRunning(() -> inference.size());
        }
        int precompiled = graphs.precompile(precompile, graphsTopic, this::owns);
        // registered once open() is done: a slot reports ready only when it can serve warm
        metrics.ready(precompiled);
    }

    /** Whether this slot serves a structure, by its hardware-independent graph id. */
    private boolean owns(String anyHardwareGraphId) {
        var task = getRuntimeContext().getTaskInfo();
        return KeyGroupRangeAssignment.assignKeyToParallelOperator(
                        HotGraphSharder.homeKey(anyHardwareGraphId),
                        task.getMaxNumberOfParallelSubtasks(),
                        task.getNumberOfParallelSubtasks())
                == task.getIndexOfThisSubtask();
    }

    /** A control command that fails is logged and ignored, whatever went wrong. */
    @Override
    public void processBroadcastElement(ControlCommand command, Context ctx, Collector<Reply> out)
            throws Exception {
        try {
            control(command, ctx);
        } catch (RuntimeException e) {
            LOG.error("Control command {} ignored", command, e);
        }
    }

    private void control(ControlCommand command, Context ctx) throws Exception {
        switch (String.valueOf(command.command)) {
            case ControlCommand.CLEAR_CACHE -> graphs.clear();
            case ControlCommand.RELOAD_CONTRACTS -> {
                TaskContracts reloaded =
                        contracts.reload(command, ctx.getBroadcastState(ControlCommand.STATE));
                if (reloaded != null) {
                    graphs.use(reloaded);
                }
            }
            default -> LOG.warn("Ignoring control command: {}", command);
        }
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
        TaskContracts changed = contracts.changed(ctx.getBroadcastState(ControlCommand.STATE));
        if (changed != null) {
            graphs.use(changed); // contracts reloaded before a restore
        }
        if (crashAfterRequests > 0
                && ++requestsSeen >= crashAfterRequests
                && CRASHED.compareAndSet(false, true)) {
            throw new IllegalStateException(
                    "Injected crash after "
                            + requestsSeen
                            + " requests (fault-injection.crash-after-requests)");
        }
        if (pastDeadline(in, out)) {
            return;
        }
        SlotGraphs.Warm warm;
        try {
            warm = warm(in, ctx, true);
        } catch (RuntimeException e) {
            fail(in, null, e, out);
            return;
        }
        int batchSize = policy.batchSize(warm.graph());
        int waiting = queued.value() == null ? 0 : queued.value();
        MicroBatchPolicy.Arrival arrival =
                policy.onArrival(
                        in.request,
                        batchSize,
                        waiting,
                        busy(ctx),
                        inference != null && inference.idle());
        if (arrival == MicroBatchPolicy.Arrival.RUN_NOW) {
            start(List.of(in), warm, ctx, out);
            return;
        }
        in.queuedAtMillis = System.currentTimeMillis();
        in.compileMicros = warm.compileMicros();
        queue.add(in);
        queued.update(waiting + 1);
        batchLimit.update(batchSize);
        switch (arrival) {
            case QUEUE_FULL -> {
                awaitRunning(ctx, out);
                startQueued(ctx, out);
            }
            case QUEUE_AND_START -> startQueued(ctx, out);
            case QUEUE_UNTIL_DELAY -> {
                if (flushAt.value() == null) {
                    long at =
                            ctx.timerService().currentProcessingTime()
                                    + policy.queueDelayMillis(warm.graph());
                    ctx.timerService().registerProcessingTimeTimer(at);
                    flushAt.update(at);
                }
            }
            default -> {} // behind the running batch: it starts the queue when done
        }
    }

    /**
     * A flush timer (the queue's oldest request has waited its delay) or a poll of the batch on the
     * inference thread (emitted once done; then the queue's next batch starts at once, as its
     * requests have waited at least that batch's run).
     */
    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<Reply> out) throws Exception {
        Long polled = pollAt.value();
        if (polled != null && polled == timestamp) {
            pollAt.clear();
            String key = ctx.getCurrentKey();
            if (busy(ctx) && !inference.done(key)) {
                if (batchDone == null) {
                    long age = inference.age(key, timestamp);
                    schedulePoll(ctx, Math.min(MAX_POLL_MILLIS, Math.max(POLL_MILLIS, age / 20)));
                } // else: the operator tells us when it is done
            } else {
                // done, or restored from a checkpoint taken while it ran: start() runs it again
                if (busy(ctx)) {
                    emitRunning(ctx, out);
                }
                startQueued(ctx, out);
            }
        }
        Long at = flushAt.value();
        if (at != null && at == timestamp) {
            flushAt.clear();
            if (!busy(ctx)) {
                startQueued(ctx, out);
            }
        }
    }

    /**
     * Starts this key's next batch: up to its batch size of queued requests, after any of a batch
     * restored in flight. On the task thread, or when a batch answers all its requests at once
     * (deadlines passed), it goes on with the next until the queue is empty.
     */
    private void startQueued(ReadOnlyContext ctx, Collector<Reply> out) throws Exception {
        Long at = flushAt.value();
        if (at != null) {
            ctx.timerService().deleteProcessingTimeTimer(at);
            flushAt.clear();
        }
        do {
            List<RoutedRequest> waiting = new ArrayList<>();
            for (RoutedRequest r : queue.get()) {
                waiting.add(r);
            }
            int take = MicroBatchPolicy.take(waiting.size(), batchLimit.value());
            List<RoutedRequest> rest = waiting.subList(take, waiting.size());
            if (rest.isEmpty()) {
                queue.clear();
                queued.clear();
                batchLimit.clear();
            } else {
                queue.update(new ArrayList<>(rest));
                queued.update(rest.size());
            }
            start(new ArrayList<>(waiting.subList(0, take)), null, ctx, out);
        } while (!busy(ctx) && queued.value() != null);
    }

    /** Whether this key has a batch on the inference thread, not yet answered. */
    private boolean busy(ReadOnlyContext ctx) {
        return inference != null && inference.has(ctx.getCurrentKey());
    }

    /**
     * Runs a batch: on the task thread, or handed to the inference thread with its requests kept in
     * flight until {@link #emitRunning} answers them. Requests left in flight by a restore (the
     * checkpoint was taken while their batch ran) run first, again.
     */
    private void start(
            List<RoutedRequest> batch,
            SlotGraphs.Warm known,
            ReadOnlyContext ctx,
            Collector<Reply> out)
            throws Exception {
        List<RoutedRequest> all = new ArrayList<>();
        for (RoutedRequest r : inFlight.get()) {
            all.add(r);
        }
        if (!all.isEmpty()) {
            known = null;
            inFlight.clear();
            LOG.info(
                    "Running again {} requests whose batch was in flight at the checkpoint",
                    all.size());
        }
        all.addAll(batch);
        if (all.isEmpty()) {
            return;
        }
        List<GraphBatch> prepared = prepare(all, known, ctx, out);
        if (prepared.isEmpty()) {
            return;
        }
        if (inference == null) {
            for (GraphBatch b : prepared) {
                finish(execute(b), ctx, out);
            }
            return;
        }
        List<RoutedRequest> held = new ArrayList<>();
        prepared.forEach(b -> b.bound().forEach(r -> held.add(r.in())));
        inFlight.update(held);
        inference.submit(
                ctx.getCurrentKey(),
                () -> prepared.stream().map(this::execute).toList(),
                ctx.timerService().currentProcessingTime(),
                batchDone == null ? null : this::signalBatchDone);
        if (batchDone == null) {
            schedulePoll(ctx, POLL_MILLIS); // no operator to tell us: look for it
        }
    }

    /**
     * Set by {@link GraphExecutorOperator} before {@code open}: tells the task thread, through its
     * mailbox, that a key's batch is done. Null where the function runs without it (a test
     * harness): the task thread then polls for finished batches with timers.
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
     * After a restore, with the operator: every key whose batch was in flight at the checkpoint
     * runs it again at once. (Polls would have been restored as timers; a batch that tells when it
     * is done leaves no timer in the checkpoint.)
     *
     * @return how many keys had requests in flight
     */
    int resumeInFlight(
            org.apache.flink.runtime.state.KeyedStateBackend<String> backend, TimerService timers)
            throws Exception {
        int[] keys = {0};
        backend.applyToAllKeys(
                org.apache.flink.runtime.state.VoidNamespace.INSTANCE,
                org.apache.flink.runtime.state.VoidNamespaceSerializer.INSTANCE,
                IN_FLIGHT,
                (key, requests) -> {
                    Iterable<RoutedRequest> held = requests.get();
                    if (held != null && held.iterator().hasNext()) {
                        keys[0]++;
                        batchDone(timers);
                    }
                });
        return keys[0];
    }

    /**
     * On the task thread, with the key of a batch that is done as the current key: answers it at
     * once, through the same timer path as a poll (the contexts Flink hands the function).
     */
    void batchDone(TimerService timers) throws Exception {
        Long polled = pollAt.value();
        if (polled != null) {
            timers.deleteProcessingTimeTimer(polled);
        }
        long now = timers.currentProcessingTime();
        timers.registerProcessingTimeTimer(now);
        pollAt.update(now);
    }

    private void schedulePoll(ReadOnlyContext ctx, long inMillis) throws Exception {
        long at = ctx.timerService().currentProcessingTime() + inMillis;
        ctx.timerService().registerProcessingTimeTimer(at);
        pollAt.update(at);
    }

    /** Waits for this key's running batch, then answers it: a full queue's backpressure. */
    private void awaitRunning(ReadOnlyContext ctx, Collector<Reply> out) throws Exception {
        if (!busy(ctx)) {
            return;
        }
        Long polled = pollAt.value();
        if (polled != null) {
            ctx.timerService().deleteProcessingTimeTimer(polled);
            pollAt.clear();
        }
        emitRunning(ctx, out); // waits for it
    }

    /**
     * Answers this key's batch on the task thread (waiting for it if it still runs) and releases
     * its requests from flight. A batch's exceptions are answered FAILED where it ran ({@link
     * #execute}); only a JVM {@link Error} reaches here and fails the task, as on the task thread:
     * Flink restores the last checkpoint and the batch runs again.
     */
    private void emitRunning(ReadOnlyContext ctx, Collector<Reply> out) throws Exception {
        List<Executed> done = inference.take(ctx.getCurrentKey());
        inFlight.clear();
        for (Executed e : done) {
            finish(e, ctx, out);
        }
    }

    private boolean pastDeadline(RoutedRequest in, Collector<Reply> out) {
        Reply late = replies.deadlinePassed(in, Instant.now());
        if (late != null) {
            reply(out, late, in);
        }
        return late != null;
    }

    /**
     * A request's graph, warm in this slot: compiled on a miss, and its descriptor emitted.
     *
     * @param arriving the request's first lookup, on arrival: the one a hit is counted for, so the
     *     hit ratio is per request; a compile is counted as a miss whenever it happens
     */
    private SlotGraphs.Warm warm(RoutedRequest in, ReadOnlyContext ctx, boolean arriving) {
        SlotGraphs.Warm warm = graphs.lookup(in.request.getPrompt(), in.safeMode);
        if (warm.compiled()) {
            metrics.compiled(warm.compileMicros());
            ctx.output(GRAPH_DESCRIPTORS, warm.compiledDescriptor());
        } else if (arriving) {
            metrics.cacheHit();
        }
        return warm;
    }

    /** A request of a batch, bound to its graph. */
    private record Bound(RoutedRequest in, SlotGraphs.Warm warm, CompiledGraph.BatchInput input) {}

    /** Requests of one graph that run together (one alone when strict), bound to it. */
    private record GraphBatch(CompiledGraph graph, List<Bound> bound) {}

    /**
     * Binds a batch on the task thread: each request to its warm graph ({@code known} for a batch
     * of one that was just looked up; else looked up again, recompiled if it was evicted or the
     * contracts changed while it waited), grouped by graph. Requests past their deadline or whose
     * graph cannot be bound are answered here; every other one is in exactly one group.
     */
    private List<GraphBatch> prepare(
            List<RoutedRequest> batch,
            SlotGraphs.Warm known,
            ReadOnlyContext ctx,
            Collector<Reply> out) {
        long now = System.currentTimeMillis();
        double free = headroom.freeRatio();
        boolean prune = free < execution.pruneBelowFreeRatio();
        if (prune) {
            LOG.debug("Pruning optional nodes: {}", headroom.describe());
        }
        // each graph's requests run together; a strict request, or any with a batch size of 1,
        // runs alone
        record Group(CompiledGraph graph, String alone) {}
        java.util.Map<Group, List<Bound>> byGraph = new java.util.LinkedHashMap<>();
        for (RoutedRequest in : batch) {
            if (in.queuedAtMillis > 0) {
                metrics.queuedFor(now - in.queuedAtMillis);
            }
            if (pastDeadline(in, out)) {
                continue;
            }
            try {
                // looked up again (not counted: its arrival was) in case it was evicted or the
                // contracts changed while it waited
                SlotGraphs.Warm warm = known != null ? known : warm(in, ctx, false);
                CompiledGraph.BatchInput input;
                if (in.safeMode) {
                    String text =
                            PromptReader.plainText(
                                    in.request.getPrompt(), graphs.safeModeMaxChars());
                    input =
                            new CompiledGraph.BatchInput(
                                    text,
                                    DocumentContent.plainText(text),
                                    policy.modeOf(in.request, prune));
                } else {
                    input =
                            CompiledGraph.BatchInput.of(
                                    warm.classified().parsed(), policy.modeOf(in.request, prune));
                }
                boolean alone = policy.runsAlone(in.request);
                byGraph.computeIfAbsent(
                                new Group(warm.graph(), alone ? in.request.getRequestId() : null),
                                g -> new ArrayList<>())
                        .add(new Bound(in, warm, input));
            } catch (RuntimeException e) {
                fail(in, null, e, out);
            }
        }
        List<GraphBatch> groups = new ArrayList<>();
        byGraph.forEach((group, bound) -> groups.add(new GraphBatch(group.graph(), bound)));
        return groups;
    }

    /** A batch and how it ran. */
    private record Executed(GraphBatch batch, BatchRunner.Outcome outcome) {}

    /** Runs a batch on the inference thread (or the task thread): see {@link BatchRunner}. */
    private Executed execute(GraphBatch batch) {
        return new Executed(
                batch,
                runner.run(
                        batch.graph(),
                        batch.bound().stream().map(Bound::input).toList(),
                        batch.bound().stream().map(b -> b.in().request.getDeadline()).toList()));
    }

    /** Answers a batch that ran: one reply per request, its cost records and the metrics. */
    private void finish(Executed executed, ReadOnlyContext ctx, Collector<Reply> out) {
        List<Bound> bound = executed.batch().bound();
        answers.batch(
                executed.batch().graph(),
                bound.stream().map(Bound::in).toList(),
                bound.stream().mapToLong(b -> b.warm().compileMicros()).toArray(),
                executed.outcome(),
                out(ctx, out));
    }

    /** Answers a request FAILED: it is never dropped, and the job keeps going. */
    private void fail(RoutedRequest in, String graphId, Throwable e, Collector<Reply> out) {
        answers.failed(in, graphId, e, out(null, out));
    }

    private void reply(Collector<Reply> out, Reply reply, RoutedRequest in) {
        answers.reply(in, reply, out(null, out));
    }

    /** Flink's collector and side outputs ({@code ctx} null where only replies go out). */
    private static BatchAnswers.Out out(ReadOnlyContext ctx, Collector<Reply> out) {
        return new BatchAnswers.Out() {
            @Override
            public void reply(Reply reply) {
                out.collect(reply);
            }

            @Override
            public void costRecord(KernelCostRecord record) {
                ctx.output(COST_RECORDS, record);
            }

            @Override
            public void descriptor(ExecutionGraph descriptor) {
                ctx.output(GRAPH_DESCRIPTORS, descriptor);
            }
        };
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
