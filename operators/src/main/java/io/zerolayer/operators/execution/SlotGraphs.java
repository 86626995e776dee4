package io.zerolayer.operators.execution;

import io.zerolayer.gpu.EncoderModel;
import io.zerolayer.gpu.ExecutionDevice;
import io.zerolayer.gpu.hardware.HardwareFingerprint;
import io.zerolayer.operators.compiler.CostEstimator;
import io.zerolayer.operators.compiler.ExecutionPlan;
import io.zerolayer.operators.compiler.GraphCompiler;
import io.zerolayer.operators.compiler.GraphIdentity;
import io.zerolayer.operators.compiler.RequestDecision;
import io.zerolayer.operators.contracts.TaskContracts;
import io.zerolayer.operators.costs.PriceSheet;
import io.zerolayer.operators.structure.ClassifiedPrompt;
import io.zerolayer.operators.structure.DocumentContent;
import io.zerolayer.operators.structure.StructureClassifier;
import io.zerolayer.operators.warmup.GraphDescriptors;
import io.zerolayer.operators.warmup.PrecompileList;
import io.zerolayer.operators.warmup.SignaturePrompt;
import io.zerolayer.schemas.ExecutionGraph;
import io.zerolayer.schemas.serde.SingleObjectCodec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The graphs of one executor slot: the hardware it compiles for, the compiler and classifier of the
 * contracts in force, its ONNX sessions, and its warm graphs — compiled on a request's first use,
 * or ahead of it from precompile.yaml and, after a restart, from the graphs topic.
 *
 * <p>Flink-free: the executor function tells it which structures its slot owns and counts what it
 * reports. Compiled graphs are not state: they follow from the graph id and the slot's hardware, so
 * after a restore they are compiled again.
 */
public final class SlotGraphs implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SlotGraphs.class);

    /**
     * A request's graph, warm in this slot, and what the graph reads of it ({@code content}; null
     * for the SAFE graph, which reads the prompt as plain text).
     *
     * @param compileMicros how long compiling it took; 0 when it was warm
     * @param descriptor the graph's descriptor to publish when the lookup changed it (compiled it,
     *     or ran a structure on it that it had not run yet); else null
     */
    public record Warm(
            CompiledGraph graph,
            DocumentContent content,
            long compileMicros,
            ExecutionGraph descriptor) {
        /** Whether the lookup compiled the graph (a miss). */
        public boolean compiled() {
            return compileMicros > 0;
        }
    }

    /** An example prompt of a structure to compile ahead, and the graph id it must yield. */
    private record WarmUp(String name, String prompt, String expectedGraphId) {}

    private final HardwareFingerprint hardware;
    private final String hardwareProfile;
    private final CostEstimator estimator;
    private final ExecutionDevice cuda;
    private final EncoderPool encoders;
    private final PriceSheet prices;
    private final WarmGraphCache warm;
    private final SingleObjectCodec<ExecutionGraph> descriptorCodec =
            SingleObjectCodec.of(ExecutionGraph.class);
    private EmbeddingCache embeddings;
    private TaskContracts contracts;
    private StructureClassifier classifier;
    private GraphCompiler compiler;

    /**
     * Opens the slot's sessions (taking back those an earlier task of the job parked in this JVM),
     * one per model, so a request pays only for compiling its graph, never for loading weights.
     *
     * @param cudaDevice the slot's CUDA device for a CUDA plan, from the GPU count; null for the
     *     CPU
     */
    public SlotGraphs(
            HardwareFingerprint hardware,
            int intraOpThreads,
            IntFunction<ExecutionDevice> cudaDevice,
            PriceSheet prices,
            WarmGraphCache.Bounds cacheBounds,
            TaskContracts contracts) {
        this.hardware = hardware;
        // the id names the profile, the fingerprint its figures: plans follow from both
        this.hardwareProfile = hardware.profile().id() + "@" + hardware.profile().fingerprint();
        this.estimator = new CostEstimator(hardware.profile(), hardware.primary(), intraOpThreads);
        this.prices = prices;
        LOG.info(
                "Compiling for hardware profile {} ({}): {}",
                hardwareProfile,
                hardware.detected() ? "detected" : "configured",
                hardware.primary().summary());
        CostEstimator.Choice device = estimator.device();
        if (hardware.profile().kind().equals("gpu") && !device.value().equals("cuda")) {
            LOG.warn("Graphs run on the CPU: {}", device.reason());
        }
        this.cuda =
                device.value().equals("cuda")
                        ? cudaDevice.apply(
                                (int) hardware.devices().stream().filter(d -> d.isGpu()).count())
                        : null;
        this.encoders = EncoderPool.reuseOrOpen(intraOpThreads, cuda);
        use(contracts);
        if (encoders.openSessions() > 0) {
            LOG.info(
                    "Reusing {} ONNX sessions an earlier task left in this JVM",
                    encoders.openSessions());
        }
        // the fallback's int8 encoder and the fp32 one most plans choose open now; any other
        // tier opens when a graph first plans it (each holds up to ~133 MB of weights)
        for (EncoderModel model :
                List.of(EncoderModel.MINILM_L6_V2_INT8, EncoderModel.MINILM_L6_V2_FP32)) {
            encoders.get(model);
        }
        if (cuda != null) {
            encoders.get(EncoderModel.MINILM_L6_V2_FP32, "cuda"); // what CUDA plans choose
        }
        this.warm = new WarmGraphCache(cacheBounds, System::currentTimeMillis);
    }

    /**
     * The TaskManager's embedding cache, which graphs compiled from now on read and fill (null:
     * none); warm graphs are dropped, so every graph uses it.
     */
    public void useEmbeddingCache(EmbeddingCache cache) {
        this.embeddings = cache;
        warm.clear();
    }

    /** The embedding cache graphs use, or null. */
    public EmbeddingCache embeddingCache() {
        return embeddings;
    }

    /** The contracts graphs are compiled for from now on; warm graphs of others are dropped. */
    public void use(TaskContracts contracts) {
        boolean reload = this.contracts != null;
        this.contracts = contracts;
        classifier = new StructureClassifier(contracts);
        // shared with the other slots of this TaskManager, and with the classifier's estimates
        // except for tasks with examples, whose heads only the slots fit (on their encoders)
        compiler =
                io.zerolayer.operators.compiler.SharedCompilers.of(
                        GraphIdentity.current(contracts.version(), hardwareProfile),
                        estimator,
                        io.zerolayer.operators.heads.TaskHeads.of(
                                contracts, new ExampleEmbedder(encoders)));
        if (reload) {
            warm.clear(); // graphs of the old contracts can no longer be hit
        }
    }

    /**
     * The request's graph: warm, or compiled now (a miss, with the descriptor to publish), from
     * what the classifier decided. The prompt is read and type-checked again only when the decision
     * was made under other contracts than this slot's (a reload reached the classifier and this
     * slot at different times): then this slot's contracts decide.
     *
     * @throws IllegalStateException when the prompt does not compile under this slot's contracts
     *     though it did under the classifier's
     */
    public Warm lookup(RequestDecision decision, String prompt) {
        RequestDecision d =
                decision.contractVersion().equals(contracts.version())
                        ? decision
                        : decideAgain(decision, prompt);
        long start = System.nanoTime();
        // this slot's hardware completes the id: the same plan has one graph per profile. The
        // compiler keeps its plans by shape, so a known shape is a lookup, not a compile
        ExecutionPlan plan =
                d.safeMode()
                        ? compiler.compileSafe(safeModeMaxChars())
                        : compiler.compile(d.structure());
        String signature = d.safeMode() ? null : d.structure().signature().canonical();
        CompiledGraph graph = warm.get(plan.graphId());
        if (graph != null) {
            boolean newStructure = signature != null && graph.noteStructure(signature);
            return new Warm(
                    graph,
                    d.content(),
                    0,
                    newStructure ? graph.descriptor(hardwareReport()) : null);
        }
        graph = new CompiledGraph(plan, encoders, prices, embeddings);
        if (signature != null) {
            graph.noteStructure(signature);
        }
        long compileMicros = Math.max(1, (System.nanoTime() - start) / 1_000);
        ExecutionGraph descriptor = graph.descriptor(hardwareReport());
        warm.put(plan.graphId(), graph, descriptorCodec.encode(descriptor).length);
        LOG.info(
                "Compiled graph {} ({}, first for {}) in {} ms; {} warm in this slot",
                plan.graphId().substring(0, 12),
                plan.shape(),
                signature == null ? plan.shape() : signature,
                compileMicros / 1_000,
                warm.size());
        return new Warm(graph, d.content(), compileMicros, descriptor);
    }

    /** The request decided under this slot's contracts; the SAFE graph serves any prompt. */
    private RequestDecision decideAgain(RequestDecision decision, String prompt) {
        if (decision.safeMode()) {
            return decision;
        }
        ClassifiedPrompt classified = classifier.classify(prompt);
        if (!classified.compiles()) {
            throw new IllegalStateException(
                    "The prompt compiled under task contracts "
                            + decision.contractVersion()
                            + " in the classifier but not under "
                            + contracts.version()
                            + " here: the two operators read different task contracts");
        }
        LOG.debug(
                "Request decided under contracts {}, decided again under {}",
                decision.contractVersion(),
                contracts.version());
        RequestDecision again =
                RequestDecision.of(classified, compiler).withEstimate(decision.encodeMillisAlone());
        // a part keeps reading its own share of the text
        return decision.part() == null
                ? again
                : again.asPart(decision.part(), decision.content(), decision.encodeMillisAlone());
    }

    /**
     * Compiles, for the structures this slot owns, those of precompile.yaml and — on a restart —
     * those whose descriptors the graphs topic holds for this slot's hardware and contracts
     * (rebuilt from the first structure each ran; kept only when the graph id comes out the same),
     * so their first requests find their graphs warm.
     *
     * @param owns whether this slot serves a graph, by its hardware-independent graph id
     * @param graphsTopic where graphs compiled before a restart are, or null
     * @return how many graphs it compiled
     */
    public int precompile(
            PrecompileList precompile, GraphDescriptors graphsTopic, Predicate<String> owns) {
        List<WarmUp> warmUps = new ArrayList<>();
        precompile.structures().forEach(s -> warmUps.add(new WarmUp(s.name(), s.prompt(), null)));
        warmUps.addAll(fromGraphsTopic(graphsTopic));
        GraphCompiler anyHardware =
                new GraphCompiler(
                        GraphIdentity.current(contracts.version(), GraphIdentity.ANY_HARDWARE));
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
            if (!owns.test(anyHardware.graphId(classified)) || warm.graphIds().contains(graphId)) {
                continue;
            }
            ExecutionPlan plan = compiler.compile(classified);
            CompiledGraph graph = new CompiledGraph(plan, encoders, prices, embeddings);
            graph.noteStructure(classified.signature().canonical());
            warm.put(
                    plan.graphId(),
                    graph,
                    descriptorCodec.encode(graph.descriptor(hardwareReport())).length);
            compiled++;
            LOG.info("Precompiled '{}' as graph {}", w.name(), plan.graphId().substring(0, 12));
        }
        return compiled;
    }

    /** Descriptors on the graphs topic compiled for this slot's hardware and contracts. */
    private List<WarmUp> fromGraphsTopic(GraphDescriptors graphsTopic) {
        if (graphsTopic == null) {
            return List.of();
        }
        List<WarmUp> out = new ArrayList<>();
        try {
            for (ExecutionGraph g : graphsTopic.readLatest(Duration.ofSeconds(10)).values()) {
                if (g.getHardwareProfile().equals(hardwareProfile)
                        && g.getContractVersion().equals(contracts.version())
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

    /** Drops every warm graph and every cached embedding (the control topic's clear-cache). */
    public void clear() {
        LOG.info(
                "clear-cache: dropping {} warm graphs{}",
                warm.size(),
                embeddings == null ? "" : " and " + embeddings.size() + " cached embeddings");
        warm.clear();
        if (embeddings != null) {
            embeddings.clear();
        }
    }

    public int size() {
        return warm.size();
    }

    /** Graph ids warm in this slot, most recently used last. */
    public List<String> graphIds() {
        return warm.graphIds();
    }

    /** The profile id and fingerprint graphs are compiled for. */
    public String hardwareProfile() {
        return hardwareProfile;
    }

    /** The slot's device, as the graph descriptors report it. */
    public String hardwareReport() {
        return hardware.primary().summary();
    }

    public CostEstimator estimator() {
        return estimator;
    }

    /** The slot's CUDA device, or null when its plans run on the CPU. */
    public ExecutionDevice cuda() {
        return cuda;
    }

    /** The longest text the safe graph takes, under the contracts in force. */
    public int safeModeMaxChars() {
        return contracts.limits().safeModeMaxChars();
    }

    /**
     * Ends the slot's use of its sessions: parked for the job's next task in this JVM when no batch
     * runs on them ({@code idle}), else closed.
     */
    public void release(boolean idle) {
        if (idle) {
            encoders.park();
        } else {
            encoders.close();
        }
    }

    @Override
    public void close() {
        encoders.close();
    }
}
