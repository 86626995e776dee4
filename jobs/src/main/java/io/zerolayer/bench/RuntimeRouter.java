package io.zerolayer.bench;

import io.zerolayer.gpu.EncoderModel;
import io.zerolayer.gpu.SentenceEncoder;
import io.zerolayer.operators.compiler.CostEstimator;
import io.zerolayer.operators.compiler.GraphCompiler;
import io.zerolayer.operators.contracts.TaskContracts;
import io.zerolayer.operators.prompt.ParsedPrompt;
import io.zerolayer.operators.structure.ClassifiedPrompt;
import io.zerolayer.operators.structure.StructureClassifier;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * What the routing layer ZeroLayer removes did for every request: read the prompt and check it
 * against its task's contract, derive its features (document tokens per scope, text runs, query
 * sequences), pick the encoder precision from them with the compiler's own cost rule, and look the
 * model's session up in a shared pool. Nothing is decided ahead of time or remembered per
 * structure, so every request pays for the decision, and each runs alone.
 *
 * <p>The router decides exactly as the compiler does — the same features, the same rule — so it
 * picks the model the compiled graph of the request's structure uses, and both do the same encoder
 * work. (A router that counted the whole prompt's tokens instead would pick the int8 encoder for
 * customer-service triage where the compiler keeps fp32, and would be measured doing a quarter of
 * the work at lower fidelity.) What remains between the two is when the decision is made and what
 * runs together: per request and alone here, per structure and in batches in ZeroLayer.
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
        CostEstimator.Choice precision =
                estimator.precision(
                        decoder,
                        GraphCompiler.workload(classified),
                        GraphCompiler.INT8_MIN_SAVING_MICROS);
        SentenceEncoder session =
                sessions.computeIfAbsent(
                        GraphCompiler.encoderOf(precision),
                        m -> SentenceEncoder.open(m, intraOpThreads));
        return new Route(
                classified.parsed(),
                classified.task(),
                decoder,
                classified.outputFormat(),
                session,
                System.nanoTime() - start);
    }

    @Override
    public void close() {
        sessions.values().forEach(SentenceEncoder::close);
        sessions.clear();
    }
}
