package io.zerolayer.bench;

import io.zerolayer.gpu.EncoderModel;
import io.zerolayer.gpu.SentenceEncoder;
import io.zerolayer.operators.compiler.CostEstimator;
import io.zerolayer.operators.compiler.GraphCompiler;
import io.zerolayer.operators.contracts.TaskContract;
import io.zerolayer.operators.contracts.TaskContracts;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the routing layer ZeroLayer removes did for every request: read the prompt's features at run
 * time (its task and output format by pattern, its length by tokenizing it, its sections and
 * queries by counting tags), pick a model from them with the same cost rule the compiler uses, and
 * look the model's session up in a shared pool. Nothing is decided ahead of time or remembered per
 * structure, so every request pays for the decision.
 */
final class RuntimeRouter implements AutoCloseable {
    private static final Pattern TASK = Pattern.compile("<task:([A-Za-z0-9_-]+)");
    private static final Pattern FORMAT = Pattern.compile("<output_format:([a-z]+)>");
    private static final Pattern SECTION = Pattern.compile("<section:");
    private static final Pattern QUERIES = Pattern.compile("<(labels|fields)>([^<]*)</\\1>");

    private final TaskContracts contracts;
    private final CostEstimator estimator;
    private final int intraOpThreads;
    private final Map<EncoderModel, SentenceEncoder> sessions = new ConcurrentHashMap<>();
    private final SentenceEncoder featureTokenizer;

    /** Where a request goes, and what deciding cost. */
    record Route(
            String task,
            String decoder,
            String outputFormat,
            SentenceEncoder session,
            long promptTokens,
            long decideNanos) {}

    RuntimeRouter(TaskContracts contracts, CostEstimator estimator, int intraOpThreads) {
        this.contracts = contracts;
        this.estimator = estimator;
        this.intraOpThreads = intraOpThreads;
        this.featureTokenizer = session(EncoderModel.MINILM_L6_V2_INT8);
    }

    /**
     * @throws IllegalArgumentException when the prompt names no known task
     */
    Route route(String prompt) {
        long start = System.nanoTime();
        Matcher task = TASK.matcher(prompt);
        if (!task.find()) {
            throw new IllegalArgumentException("No <task:…> tag in the prompt");
        }
        TaskContract contract = contracts.task(task.group(1));
        if (contract == null) {
            throw new IllegalArgumentException("Unknown task '" + task.group(1) + "'");
        }
        Matcher format = FORMAT.matcher(prompt);
        String outputFormat = format.find() ? format.group(1) : "json";
        long tokens = featureTokenizer.tokenizeText(prompt).size();
        int sections = 0;
        for (Matcher m = SECTION.matcher(prompt); m.find(); ) {
            sections++;
        }
        int queries = 0;
        for (Matcher m = QUERIES.matcher(prompt); m.find(); ) {
            queries += m.group(2).split(",").length;
        }
        if (prompt.contains("<question>")) {
            queries++;
        }
        String decoder = contract.decoder();
        CostEstimator.Choice precision =
                estimator.precision(
                        decoder,
                        new CostEstimator.Workload(
                                Map.of("document", (double) tokens),
                                Math.max(1, sections),
                                queries,
                                GraphCompiler.strategyOf(decoder)),
                        GraphCompiler.INT8_MIN_SAVING_MICROS);
        EncoderModel model =
                precision.value().equals("int8")
                        ? EncoderModel.MINILM_L6_V2_INT8
                        : EncoderModel.MINILM_L6_V2_FP32;
        SentenceEncoder session = session(model);
        return new Route(
                contract.name(), decoder, outputFormat, session, tokens, System.nanoTime() - start);
    }

    private SentenceEncoder session(EncoderModel model) {
        return sessions.computeIfAbsent(model, m -> SentenceEncoder.open(m, intraOpThreads));
    }

    @Override
    public void close() {
        sessions.values().forEach(SentenceEncoder::close);
        sessions.clear();
    }
}
