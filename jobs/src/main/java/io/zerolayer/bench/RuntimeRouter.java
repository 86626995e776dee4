package io.zerolayer.bench;

import io.zerolayer.gpu.EncoderModel;
import io.zerolayer.gpu.SentenceEncoder;
import io.zerolayer.operators.compiler.CostEstimator;
import io.zerolayer.operators.compiler.GraphCompiler;
import io.zerolayer.operators.compiler.StructureWorkload;
import io.zerolayer.operators.contracts.TaskContracts;
import io.zerolayer.operators.prompt.ParsedPrompt;
import io.zerolayer.operators.structure.ClassifiedPrompt;
import io.zerolayer.operators.structure.StructureClassifier;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * What the routing layer ZeroLayer removes did for every request: read the prompt and check it
 * against its task's contract, derive its features (document tokens, decoder), pick a model for it
 * from them and look the model's session up in a shared pool. Nothing is decided ahead of time or
 * remembered per structure, so every request pays for the decision, and each runs alone.
 *
 * <p>It routes among the same tiers as the compiler, the way such routers do: by the request's size
 * and the models' published standing, not by quality measured on the traffic. A request of at most
 * {@value #LIGHT_MAX_TOKENS} document tokens goes to the light family (all-MiniLM-L6-v2), a longer
 * one to the heavy family (bge-small-en-v1.5, the higher published MTEB average: 62.2 against
 * 56.3); within the family, fp32 for decoders that return a vector or a passage, else int8 where it
 * saves at least {@link GraphCompiler#INT8_MIN_SAVING_MICROS} µs of encoding (the compiler's rule
 * before quality was measured). What remains between the two systems is what the choice is made
 * from (a size threshold and published scores, against measured quality and cost), when it is made,
 * and what runs together.
 */
final class RuntimeRouter implements AutoCloseable {
    private final StructureClassifier classifier;
    private final CostEstimator estimator;
    private final int intraOpThreads;
    private final Map<EncoderModel, SentenceEncoder> sessions = new ConcurrentHashMap<>();

    /** Where a request goes, and what deciding cost. */
    record Route(
            ParsedPrompt parsed,
            String task,
            String decoder,
            String outputFormat,
            SentenceEncoder session,
            long decideNanos) {}

    RuntimeRouter(TaskContracts contracts, CostEstimator estimator, int intraOpThreads) {
        this.classifier = new StructureClassifier(contracts);
        this.estimator = estimator;
        this.intraOpThreads = intraOpThreads;
    }

    /**
     * @throws IllegalArgumentException when the prompt breaks its contract or names no known task
     */
    Route route(String prompt) {
        long start = System.nanoTime();
        ClassifiedPrompt classified = classifier.classify(prompt);
        if (!classified.compiles()) {
            throw new IllegalArgumentException(
                    classified.diagnostics().stream()
                            .map(d -> d.code() + " " + d.message())
                            .collect(Collectors.joining("; ")));
        }
        String decoder = classified.contract().decoder();
        SentenceEncoder session =
                sessions.computeIfAbsent(
                        tierFor(decoder, GraphCompiler.workload(classified)),
                        m -> SentenceEncoder.open(m, intraOpThreads));
        return new Route(
                classified.parsed(),
                classified.task(),
                decoder,
                classified.outputFormat(),
                session,
                System.nanoTime() - start);
    }

    /** Most document tokens a request may have and still go to the light family. */
    static final int LIGHT_MAX_TOKENS = 512;

    /** The tier the router sends a request of {@code decoder} and workload {@code w} to. */
    EncoderModel tierFor(String decoder, StructureWorkload w) {
        boolean light = w.documentTokens() <= LIGHT_MAX_TOKENS;
        EncoderModel fp32 =
                light ? EncoderModel.MINILM_L6_V2_FP32 : EncoderModel.BGE_SMALL_EN_V15_FP32;
        EncoderModel int8 =
                light ? EncoderModel.MINILM_L6_V2_INT8 : EncoderModel.BGE_SMALL_EN_V15_INT8;
        if (decoder.equals("embed") || decoder.equals("answer") || estimator.onGpu()) {
            return fp32;
        }
        double saving =
                estimator.encode(fp32, w, 1).micros() - estimator.encode(int8, w, 1).micros();
        return saving >= GraphCompiler.INT8_MIN_SAVING_MICROS ? int8 : fp32;
    }

    @Override
    public void close() {
        sessions.values().forEach(SentenceEncoder::close);
        sessions.clear();
    }
}
