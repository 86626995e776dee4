package io.zerolayer.operators.flink;

import io.zerolayer.gpu.EncoderModel;
import io.zerolayer.gpu.hardware.HardwareFingerprint;
import io.zerolayer.gpu.hardware.HardwareProfiles;
import io.zerolayer.operators.compiler.CostEstimator;
import io.zerolayer.operators.compiler.ExecutionPlan;
import io.zerolayer.operators.compiler.GraphCompiler;
import io.zerolayer.operators.compiler.GraphIdentity;
import io.zerolayer.operators.contracts.DiagnosticCodes;
import io.zerolayer.operators.contracts.TaskContracts;
import io.zerolayer.operators.execution.CompiledGraph;
import io.zerolayer.operators.execution.EncoderPool;
import io.zerolayer.operators.execution.GraphRun;
import io.zerolayer.operators.execution.NodeRun;
import io.zerolayer.operators.execution.WarmGraphCache;
import io.zerolayer.operators.prompt.PromptReader;
import io.zerolayer.operators.structure.ClassifiedPrompt;
import io.zerolayer.operators.structure.DocumentContent;
import io.zerolayer.operators.structure.StructureClassifier;
import io.zerolayer.operators.warmup.GraphDescriptors;
import io.zerolayer.operators.warmup.PrecompileList;
import io.zerolayer.operators.warmup.SignaturePrompt;
import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.AnalysisResponse;
import io.zerolayer.schemas.CostTotal;
import io.zerolayer.schemas.ExecutionGraph;
import io.zerolayer.schemas.Fidelity;
import io.zerolayer.schemas.KernelCostRecord;
import io.zerolayer.schemas.ResponseStatus;
import io.zerolayer.schemas.Timings;
import io.zerolayer.schemas.serde.SingleObjectCodec;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.runtime.metrics.DescriptiveStatisticsHistogram;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
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

    private transient String hardwareProfile;
    private transient String hardwareReport;
    private transient CostEstimator estimator;
    private transient StructureClassifier classifier;
    private transient GraphCompiler compiler;
    private transient int safeModeMaxChars;
    private transient EncoderPool encoders;
    private transient WarmGraphCache warmGraphs;
    private transient SingleObjectCodec<ExecutionGraph> descriptorCodec;
    private transient Counter cacheHits;
    private transient Counter cacheMisses;
    private transient Histogram compileTimeMs;
    private transient Histogram requestLatencyMs;

    public GraphExecutorFunction(
            String contractsYaml,
            String contractsFile,
            String hardwareSetting,
            String extraProfilesYaml,
            WarmGraphCache.Bounds cacheBounds,
            int intraOpThreads,
            PrecompileList precompile,
            GraphDescriptors graphsTopic) {
        this.precompile = precompile;
        this.graphsTopic = graphsTopic;
        this.contracts = new ContractsInForce(contractsYaml, contractsFile);
        this.hardwareSetting = hardwareSetting;
        this.extraProfilesYaml = extraProfilesYaml;
        this.cacheBounds = cacheBounds;
        this.intraOpThreads = intraOpThreads;
    }

    @Override
    public void open(OpenContext context) {
        // detected per slot, so each TaskManager of a mixed cluster compiles for its own hardware
        HardwareFingerprint hardware =
                HardwareFingerprint.resolve(
                        hardwareSetting, HardwareProfiles.builtInWith(extraProfilesYaml));
        // the id names the profile, the fingerprint its figures: plans follow from both
        hardwareProfile = hardware.profile().id() + "@" + hardware.profile().fingerprint();
        hardwareReport = hardware.primary().summary();
        estimator = new CostEstimator(hardware.profile(), hardware.primary(), intraOpThreads);
        LOG.info(
                "Compiling for hardware profile {} ({}): {}",
                hardwareProfile,
                hardware.detected() ? "detected" : "configured",
                hardware.primary().summary());
        CostEstimator.Choice device = estimator.device();
        if (hardware.profile().kind().equals("gpu") && !device.value().equals("cuda")) {
            LOG.warn("Graphs run on the CPU: {}", device.reason());
        }
        use(contracts.initial());
        encoders = new EncoderPool(intraOpThreads);
        // Warm start: open every model's session now, so the first request of a graph pays only
        // for compiling it (graph_compile_time_ms), not for loading weights.
        for (EncoderModel model : EncoderModel.values()) {
            encoders.get(model);
        }
        warmGraphs = new WarmGraphCache(cacheBounds, System::currentTimeMillis);
        descriptorCodec = SingleObjectCodec.of(ExecutionGraph.class);
        var metrics = getRuntimeContext().getMetricGroup();
        cacheHits = metrics.counter("execution_graph_cache_hit_total");
        cacheMisses = metrics.counter("execution_graph_cache_miss_total");
        compileTimeMs =
                metrics.histogram(
                        "graph_compile_time_ms", new DescriptiveStatisticsHistogram(1000));
        requestLatencyMs =
                metrics.histogram("request_latency_ms", new DescriptiveStatisticsHistogram(1000));
        metrics.gauge("execution_graph_cache_size", () -> warmGraphs.size());
        metrics.gauge("execution_graph_cache_hit_ratio", () -> warmGraphs.hitRatio());
        int precompiled = precompileOwnStructures();
        // registered once open() is done: a slot reports ready only when it can serve warm
        metrics.gauge("graphs_ready", () -> 1);
        metrics.gauge("graphs_precompiled", () -> precompiled);
    }

    /** An example prompt of a structure to compile at open, and the graph id it must yield. */
    private record WarmUp(String name, String prompt, String expectedGraphId) {}

    /**
     * Compiles, in the slot that owns each, the structures of precompile.yaml and — on a restart —
     * those whose descriptors the graphs topic holds for this slot's hardware and contracts
     * (rebuilt from their signatures; kept only when the graph id comes out the same), so their
     * first requests find their graphs warm.
     */
    private int precompileOwnStructures() {
        List<WarmUp> warmUps = new ArrayList<>();
        precompile.structures().forEach(s -> warmUps.add(new WarmUp(s.name(), s.prompt(), null)));
        warmUps.addAll(fromGraphsTopic());
        var task = getRuntimeContext().getTaskInfo();
        GraphCompiler router =
                new GraphCompiler(
                        GraphIdentity.current(
                                contracts.current().version(), GraphIdentity.ANY_HARDWARE));
        int compiled = 0;
        for (WarmUp w : warmUps) {
            ClassifiedPrompt classified = classifier.classify(w.prompt());
            if (!classified.compiles()) {
                LOG.warn(
                        "Warm-up structure '{}' does not compile and is skipped: {}",
                        w.name(),
                        classified.diagnostics());
                continue;
            }
            String graphId = compiler.graphId(classified);
            if (w.expectedGraphId() != null && !w.expectedGraphId().equals(graphId)) {
                LOG.debug(
                        "Graph {} cannot be rebuilt from its signature; it compiles on first use",
                        w.expectedGraphId());
                continue;
            }
            String home = HotGraphSharder.homeKey(router.graphId(classified));
            int slot =
                    KeyGroupRangeAssignment.assignKeyToParallelOperator(
                            home,
                            task.getMaxNumberOfParallelSubtasks(),
                            task.getNumberOfParallelSubtasks());
            if (slot != task.getIndexOfThisSubtask() || warmGraphs.graphIds().contains(graphId)) {
                continue;
            }
            ExecutionPlan plan = compiler.compile(classified);
            warmGraphs.put(
                    plan.graphId(),
                    new CompiledGraph(plan, encoders),
                    descriptorCodec.encode(plan.toDescriptor(Instant.now())).length);
            compiled++;
            LOG.info("Precompiled '{}' as graph {}", w.name(), plan.graphId().substring(0, 12));
        }
        return compiled;
    }

    /** Descriptors on the graphs topic compiled for this slot's hardware and contracts. */
    private List<WarmUp> fromGraphsTopic() {
        if (graphsTopic == null) {
            return List.of();
        }
        List<WarmUp> out = new ArrayList<>();
        try {
            for (ExecutionGraph g :
                    graphsTopic.readLatest(java.time.Duration.ofSeconds(10)).values()) {
                if (g.getHardwareProfile().equals(hardwareProfile)
                        && g.getContractVersion().equals(contracts.current().version())
                        && !g.getSignature().equals(GraphCompiler.SAFE_SIGNATURE)) {
                    out.add(
                            new WarmUp(
                                    "graph " + g.getGraphId().substring(0, 12),
                                    SignaturePrompt.of(g.getSignature()),
                                    g.getGraphId()));
                }
            }
        } catch (RuntimeException e) {
            LOG.warn(
                    "Could not read compiled graphs from {} to warm up; they compile on first use:"
                            + " {}",
                    graphsTopic.topic(),
                    e.toString());
        }
        return out;
    }

    private void use(TaskContracts taskContracts) {
        classifier = new StructureClassifier(taskContracts);
        compiler =
                new GraphCompiler(
                        GraphIdentity.current(taskContracts.version(), hardwareProfile), estimator);
        safeModeMaxChars = taskContracts.limits().safeModeMaxChars();
    }

    @Override
    public void processBroadcastElement(ControlCommand command, Context ctx, Collector<Reply> out)
            throws Exception {
        switch (command.command) {
            case ControlCommand.CLEAR_CACHE -> {
                LOG.info("clear-cache: dropping {} warm graphs", warmGraphs.size());
                warmGraphs.clear();
            }
            case ControlCommand.RELOAD_CONTRACTS -> {
                TaskContracts reloaded =
                        contracts.reload(command, ctx.getBroadcastState(ControlCommand.STATE));
                if (reloaded != null) {
                    use(reloaded);
                    warmGraphs.clear(); // graphs of the old contracts can no longer be hit
                }
            }
            default -> LOG.warn("Ignoring control command: {}", command);
        }
    }

    @Override
    public void processElement(RoutedRequest in, ReadOnlyContext ctx, Collector<Reply> out)
            throws Exception {
        TaskContracts changed = contracts.changed(ctx.getBroadcastState(ControlCommand.STATE));
        if (changed != null) {
            use(changed); // contracts reloaded before a restore
        }
        AnalysisRequest request = in.request;
        Instant now = Instant.now();
        if (request.getDeadline() != null && now.isAfter(request.getDeadline())) {
            out.collect(
                    new Reply(
                            Responses.failed(
                                    request,
                                    null,
                                    DiagnosticCodes.DEADLINE_PASSED,
                                    "Deadline "
                                            + request.getDeadline()
                                            + " passed before the request ran",
                                    in.classifyMicros),
                            in.route));
            return;
        }
        String graphId = null;
        try {
            ClassifiedPrompt classified =
                    in.safeMode ? null : classifier.classify(request.getPrompt());
            if (classified != null && !classified.compiles()) {
                throw new IllegalStateException(
                        "The prompt compiled in the classifier but not here: the two operators"
                                + " read different task contracts");
            }
            // this slot's hardware completes the id: the same structure has one graph per profile
            graphId = in.safeMode ? compiler.safeGraphId() : compiler.graphId(classified);
            long compileMicros = 0;
            CompiledGraph graph = warmGraphs.get(graphId);
            if (graph == null) {
                long start = System.nanoTime();
                ExecutionPlan plan =
                        in.safeMode
                                ? compiler.compileSafe(safeModeMaxChars)
                                : compiler.compile(classified);
                graph = new CompiledGraph(plan, encoders);
                compileMicros = Math.max(1, (System.nanoTime() - start) / 1_000);
                ExecutionGraph descriptor = plan.toDescriptor(now, hardwareReport, null);
                warmGraphs.put(graphId, graph, descriptorCodec.encode(descriptor).length);
                cacheMisses.inc();
                compileTimeMs.update(compileMicros / 1_000);
                ctx.output(GRAPH_DESCRIPTORS, descriptor);
                LOG.info(
                        "Compiled graph {} ({}) in {} ms; {} warm in this slot",
                        graphId.substring(0, 12),
                        plan.signature(),
                        compileMicros / 1_000,
                        warmGraphs.size());
            } else {
                cacheHits.inc();
            }
            long start = System.nanoTime();
            GraphRun run;
            if (in.safeMode) {
                String text = PromptReader.plainText(request.getPrompt(), safeModeMaxChars);
                run = graph.execute(text, DocumentContent.plainText(text));
            } else {
                run = graph.execute(classified.parsed());
            }
            long executeMicros = (System.nanoTime() - start) / 1_000;
            emitCosts(ctx, request, graph, run);
            graph.timings().record(run);
            if (graph.timings().worthPublishing()) {
                // the compacted graphs topic keeps the latest: inspect shows measured p50s
                ctx.output(
                        GRAPH_DESCRIPTORS,
                        graph.plan()
                                .toDescriptor(graph.compiledAt(), hardwareReport, graph.timings()));
            }
            AnalysisResponse response =
                    Responses.base(request, in.classifyMicros)
                            .setGraphId(graphId)
                            .setStatus(ResponseStatus.OK)
                            .setFidelity(in.safeMode ? Fidelity.SAFE_MODE : Fidelity.FULL)
                            .setTask(graph.plan().task())
                            .setOutputFormat(graph.plan().outputFormat())
                            .setOutput(run.output())
                            .setDiagnostics(in.diagnostics)
                            .setTimings(
                                    new Timings(
                                            request.getSubmittedAt(),
                                            Instant.now(),
                                            in.classifyMicros,
                                            compileMicros,
                                            executeMicros))
                            .setCost(
                                    new CostTotal(
                                            run.nodeRuns().size(),
                                            run.kernelNanos(),
                                            run.flops(),
                                            null))
                            .build();
            out.collect(new Reply(response, in.route));
        } catch (RuntimeException e) {
            // A request that cannot run is answered, never dropped; the job keeps going.
            LOG.warn("Request {} on graph {} failed", request.getRequestId(), graphId, e);
            out.collect(
                    new Reply(
                            Responses.failed(
                                    request,
                                    graphId,
                                    DiagnosticCodes.EXECUTION_FAILED,
                                    "Execution failed: " + e.getMessage(),
                                    in.classifyMicros),
                            in.route));
        }
        requestLatencyMs.update(System.currentTimeMillis() - in.receivedAtMillis);
    }

    private void emitCosts(
            ReadOnlyContext ctx, AnalysisRequest request, CompiledGraph graph, GraphRun run) {
        String graphId = graph.plan().graphId();
        for (NodeRun node : run.nodeRuns()) {
            ctx.output(
                    COST_RECORDS,
                    KernelCostRecord.newBuilder()
                            .setRecordId(
                                    request.getRequestId() + "/" + graphId + "/" + node.nodeId())
                            .setRequestId(request.getRequestId())
                            .setTenantId(request.getTenantId())
                            .setGraphId(graphId)
                            .setNodeId(node.nodeId())
                            .setKernel(node.kind())
                            .setModel(node.model())
                            .setDevice(graph.device())
                            .setHardwareProfile(estimator.profile().id())
                            .setStartedAt(Instant.ofEpochMilli(node.startedAtMillis()))
                            .setDurationNanos(node.durationNanos())
                            .setBatchSize(node.items())
                            .setTokens(node.tokens())
                            .setFlops(node.flops())
                            .setMemoryBytes(node.memoryBytes())
                            .build());
        }
    }

    /** Graph ids warm in this slot, most recently used last; for tests and inspection. */
    List<String> warmGraphIds() {
        return warmGraphs.graphIds();
    }

    @Override
    public void close() {
        if (encoders != null) {
            encoders.close();
        }
    }
}
