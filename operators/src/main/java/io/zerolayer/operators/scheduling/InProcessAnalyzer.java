package io.zerolayer.operators.scheduling;

import io.zerolayer.gpu.hardware.HardwareFingerprint;
import io.zerolayer.gpu.hardware.HardwareProfiles;
import io.zerolayer.gpu.hardware.MemoryHeadroom;
import io.zerolayer.operators.compiler.CostEstimator;
import io.zerolayer.operators.compiler.GraphCompiler;
import io.zerolayer.operators.compiler.GraphIdentity;
import io.zerolayer.operators.compiler.RequestDecision;
import io.zerolayer.operators.compiler.SharedCompilers;
import io.zerolayer.operators.contracts.SafeModePolicy;
import io.zerolayer.operators.contracts.TaskContracts;
import io.zerolayer.operators.execution.BatchRunner;
import io.zerolayer.operators.execution.EmbeddingCache;
import io.zerolayer.operators.execution.ExecutionSettings;
import io.zerolayer.operators.execution.SliceBoundary;
import io.zerolayer.operators.execution.SlotGraphs;
import io.zerolayer.operators.kafka.ReplyRoute;
import io.zerolayer.operators.replies.Reply;
import io.zerolayer.operators.replies.ReplyAssembler;
import io.zerolayer.operators.replies.Responses;
import io.zerolayer.operators.routing.RoutedRequest;
import io.zerolayer.operators.routing.TenantRouting;
import io.zerolayer.operators.structure.ClassifiedPrompt;
import io.zerolayer.operators.structure.StructureClassifier;
import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.AnalysisResponse;
import io.zerolayer.schemas.KernelCostRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * Requests analysed in batches inside the caller's process: the streaming job's classifier and one
 * of its executor slots, without Kafka or Flink, for callers that hold their requests themselves
 * (Flink SQL's {@code ML_PREDICT}). A batch's requests are read and type-checked against the task
 * contracts (rejected with their diagnostics, as the job rejects them), bound to this analyzer's
 * warm graphs (each structure compiled once, on its first request), run in one encoder pass per
 * encoder, and answered with the cost record of every kernel they ran, as the executor answers
 * them. A request runs whole: the job's splitting of very long documents into parts is not done
 * here.
 *
 * <p>One caller thread at a time; {@link #close} releases the ONNX sessions.
 */
public final class InProcessAnalyzer implements AutoCloseable {
    /** A request's reply and the cost records of the kernels it ran (none when rejected). */
    public record Answer(AnalysisResponse response, List<KernelCostRecord> costs) {}

    private final SlotGraphs graphs;
    private final MicroBatchPolicy policy;
    private final SlotBatches batches;
    private final StructureClassifier classifier;
    private final GraphCompiler compiler;
    private final TenantRouting routing;
    private final int safeModeMaxChars;
    private final long passTokens;
    private final SliceBoundary slices;

    /**
     * What an analyzer runs with.
     *
     * @param setup contracts, hardware, prices, warm-graph bounds, batching and slices, as an
     *     executor slot's
     * @param safeMode whether a prompt of abnormal structure is served by the SAFE graph or
     *     rejected
     * @param passTokens most estimated padded tokens of one encoder pass: micro-batches run
     *     together up to it, as the executor's inference thread runs them
     * @param embeddingCache how requests share the vectors of sequences encoded before: in a cache
     *     of the JVM's in-process analyzers, apart from the streaming job's
     */
    public record Settings(
            ExecutorSetup setup,
            SafeModePolicy safeMode,
            long passTokens,
            EmbeddingCache.Settings embeddingCache)
            implements java.io.Serializable {}

    private InProcessAnalyzer(Settings settings) {
        ExecutorSetup setup = settings.setup();
        SafeModePolicy safeMode = settings.safeMode();
        this.passTokens = settings.passTokens();
        // encoder runs cut as the executor cuts them, so answers and bills match the job's
        this.slices =
                setup.sliceMillis() == 0
                        ? SliceBoundary.NONE
                        : new SliceBoundary(setup.sliceMillis() * 1_000, () -> 0);
        TaskContracts contracts =
                setup.contractsYaml() == null
                        ? TaskContracts.builtIn()
                        : TaskContracts.parse(setup.contractsYaml());
        ExecutionSettings execution = setup.execution();
        HardwareFingerprint hardware =
                HardwareFingerprint.resolve(
                        setup.hardwareSetting(),
                        HardwareProfiles.builtInWith(setup.extraProfilesYaml()));
        graphs =
                new SlotGraphs(
                        hardware,
                        setup.intraOpThreads(),
                        gpus ->
                                io.zerolayer.gpu.ExecutionDevice.cuda(
                                        execution.gpu().deviceFor(0, gpus),
                                        execution.gpu().memoryLimitBytes(),
                                        execution.gpu().arenaStrategy()),
                        setup.prices(),
                        setup.cacheBounds(),
                        contracts);
        MemoryHeadroom headroom =
                graphs.cuda() != null
                        ? MemoryHeadroom.cuda(graphs.cuda().deviceId())
                        : MemoryHeadroom.cpu();
        ReplyAssembler replies =
                new ReplyAssembler(
                        graphs.estimator().profile().id(),
                        headroom::describe,
                        execution.pruneBelowFreeRatio());
        SlotMetrics metrics = new SlotMetrics() {};
        graphs.useEmbeddingCache(cache(settings.embeddingCache()));
        policy = new MicroBatchPolicy(execution).withEmbeddingCache(settings.embeddingCache());
        batches =
                new SlotBatches(
                        graphs,
                        policy,
                        new BatchRunner(execution.mainPathTimeoutMillis(), BatchRunner.Faults.NONE),
                        headroom,
                        execution.pruneBelowFreeRatio(),
                        metrics,
                        replies,
                        new BatchAnswers(replies, metrics, graphs::hardwareReport));
        classifier = new StructureClassifier(contracts);
        compiler =
                SharedCompilers.of(
                        GraphIdentity.current(contracts.version(), GraphIdentity.ANY_HARDWARE),
                        CostEstimator.nominal());
        routing = new TenantRouting(null, execution, safeMode);
        safeModeMaxChars = contracts.limits().safeModeMaxChars();
    }

    private static EmbeddingCache cache;

    /**
     * The cache the in-process analyzers of this JVM share, made with the first bound asked for;
     * null when {@code settings} turn it off. It is not the TaskManager's cache of the streaming
     * job's slots: the tenant an in-process caller names is not verified, so its scope must not
     * reach the entries of a tenant whose requests were signed (a hit would tell it what that
     * tenant sent).
     */
    private static synchronized EmbeddingCache cache(EmbeddingCache.Settings settings) {
        if (!settings.enabled()) {
            return null;
        }
        if (cache == null) {
            cache = new EmbeddingCache(settings.maxBytes());
        }
        return cache;
    }

    /**
     * An analyzer on this machine's hardware (or the profile its setup names), with its setup's
     * contracts, prices, warm-graph bounds and batching.
     */
    public static InProcessAnalyzer open(Settings settings) {
        return new InProcessAnalyzer(settings);
    }

    /**
     * Answers {@code requests} (their ids unique among them), in their order: those the contracts
     * reject REJECTED with their diagnostics, the others run in batches by graph. Never throws for
     * a request: one that fails is answered FAILED.
     */
    public List<Answer> analyse(List<AnalysisRequest> requests) {
        Answer[] answers = new Answer[requests.size()];
        analyse(requests, (index, answer) -> answers[index] = answer);
        return List.of(answers);
    }

    /**
     * As {@link #analyse(List)}, handing each request's answer to {@code answered} (with the
     * request's index) as soon as it is complete: a rejected one at once, the others as their
     * micro-batch finishes. The micro-batches run in waves of at most the pass tokens, in one
     * encoder pass per encoder, so a caller can take in new requests while later waves run.
     */
    public void analyse(List<AnalysisRequest> requests, BiConsumer<Integer, Answer> answered) {
        Map<String, Integer> index = new HashMap<>();
        List<RoutedRequest> routed = new ArrayList<>();
        for (int i = 0; i < requests.size(); i++) {
            AnalysisRequest request = requests.get(i);
            index.put(request.getRequestId(), i);
            long start = System.nanoTime();
            ClassifiedPrompt classified = classifier.classify(request.getPrompt());
            long classifyMicros = (System.nanoTime() - start) / 1_000;
            RequestDecision decision =
                    routing.decide(request, classified, compiler, safeModeMaxChars);
            if (decision == null) {
                answered.accept(
                        i,
                        new Answer(
                                Responses.rejected(
                                        request, classified.diagnostics(), classifyMicros),
                                List.of()));
                continue;
            }
            routed.add(
                    RoutedRequest.routed(
                            request,
                            new ReplyRoute(),
                            decision,
                            decision.graphId(),
                            classifyMicros,
                            System.currentTimeMillis()));
        }
        // replies and cost records of one wave, handed on when the wave is done
        Map<String, AnalysisResponse> responses = new LinkedHashMap<>();
        Map<String, List<KernelCostRecord>> costs = new HashMap<>();
        BatchAnswers.Out out =
                BatchAnswers.Out.of(
                        (RoutedRequest in, Reply reply) ->
                                responses.put(in.request().getRequestId(), reply.response),
                        record ->
                                costs.computeIfAbsent(
                                                record.getRequestId(), id -> new ArrayList<>())
                                        .add(record),
                        descriptor -> {});
        Runnable handOn =
                () -> {
                    responses.forEach(
                            (id, response) ->
                                    answered.accept(
                                            index.get(id),
                                            new Answer(
                                                    response, costs.getOrDefault(id, List.of()))));
                    responses.clear();
                    costs.clear();
                };
        // micro-batches of each graph's batch size, as the executor takes them from its queue,
        // run together up to the pass tokens, as its inference thread joins waiting batches
        List<List<SlotBatches.GraphBatch>> waves = new ArrayList<>();
        long waveTokens = 0;
        for (SlotBatches.GraphBatch group : batches.prepare(routed, null, out)) {
            int size = Math.max(1, policy.batchSize(group.graph()));
            for (int from = 0; from < group.bound().size(); from += size) {
                SlotBatches.GraphBatch batch =
                        new SlotBatches.GraphBatch(
                                group.graph(),
                                group.bound()
                                        .subList(from, Math.min(group.bound().size(), from + size)),
                                group.alone());
                if (waves.isEmpty() || waveTokens + batch.paddedTokens() > passTokens) {
                    waves.add(new ArrayList<>());
                    waveTokens = 0;
                }
                waveTokens += batch.paddedTokens();
                waves.get(waves.size() - 1).add(batch);
            }
        }
        handOn.run(); // requests prepare answered (past their deadline, or unbound)
        for (List<SlotBatches.GraphBatch> wave : waves) {
            for (SlotBatches.Executed executed : batches.executeTogether(wave, slices)) {
                batches.finish(executed, out);
            }
            handOn.run();
        }
    }

    /** The graphs warm in this analyzer now. */
    public int warmGraphs() {
        return graphs.size();
    }

    @Override
    public void close() {
        graphs.close();
    }
}
