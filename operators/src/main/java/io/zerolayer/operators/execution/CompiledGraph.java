package io.zerolayer.operators.execution;

import io.zerolayer.gpu.EncoderModel;
import io.zerolayer.gpu.SentenceEncoder;
import io.zerolayer.gpu.TokenBatch;
import io.zerolayer.gpu.TokenizedText;
import io.zerolayer.operators.compiler.ExecutionPlan;
import io.zerolayer.operators.compiler.PlanNode;
import io.zerolayer.operators.prompt.ParsedPrompt;
import io.zerolayer.operators.structure.DocumentContent;
import io.zerolayer.operators.structure.DocumentContent.TextRun;
import io.zerolayer.operators.tasks.DocumentTask;
import io.zerolayer.operators.tasks.TaskInput;
import io.zerolayer.operators.tasks.TaskResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An {@link ExecutionPlan} bound to this slot's resources: its encoder session, one chunker per
 * scope and its task decoder. Built once per graph id per slot and reused for every request with
 * that structure; executing it records one {@link NodeRun} per node.
 */
public final class CompiledGraph {
    private final ExecutionPlan plan;
    private final SentenceEncoder encoder;
    private final Map<String, Chunker> chunkers = new LinkedHashMap<>();
    private final DocumentTask task;
    private final PlanNode encodeNode;
    private final PlanNode poolNode;
    private final PlanNode decodeNode;

    public CompiledGraph(ExecutionPlan plan, EncoderPool encoders) {
        this.plan = plan;
        this.encodeNode = plan.node("encode");
        this.poolNode = plan.node("pool");
        this.decodeNode = plan.node("decode");
        this.encoder = encoders.get(EncoderModel.byId(encodeNode.model()));
        for (PlanNode chunk : plan.nodes("chunk")) {
            chunkers.put(
                    chunk.params().get("scope"),
                    new Chunker(
                            chunk.params().get("strategy"),
                            Integer.parseInt(chunk.params().get("window")),
                            Integer.parseInt(chunk.params().get("stride"))));
        }
        this.task = DocumentTask.forName(decodeNode.params().get("decoder"));
    }

    private final NodeTimings timings = new NodeTimings();
    private final java.time.Instant compiledAt = java.time.Instant.now();

    /** When this slot compiled the graph. */
    public java.time.Instant compiledAt() {
        return compiledAt;
    }

    /** Measured node durations of this graph in this slot. */
    public NodeTimings timings() {
        return timings;
    }

    public ExecutionPlan plan() {
        return plan;
    }

    public String device() {
        return encoder.device();
    }

    /**
     * Runs the graph on one prompt of this graph's structure.
     *
     * @throws IllegalArgumentException if the prompt's scopes are not the ones this graph was
     *     compiled for (a different structure reached this graph)
     */
    public GraphRun execute(ParsedPrompt prompt) {
        return execute(prompt.source(), DocumentContent.of(prompt));
    }

    /**
     * Runs the graph on content already extracted from {@code source} (the SAFE graph passes the
     * prompt as plain text).
     */
    public GraphRun execute(String source, DocumentContent content) {
        if (!content.scopes().keySet().equals(chunkers.keySet())) {
            throw new IllegalArgumentException(
                    "Prompt scopes "
                            + content.scopes().keySet()
                            + " do not match graph "
                            + plan.graphId()
                            + " compiled for "
                            + chunkers.keySet());
        }
        List<NodeRun> runs = new ArrayList<>();

        // tokenize: every document run and every query, no truncation
        Timer timer = new Timer();
        Map<TextRun, TokenizedText> tokenized = new LinkedHashMap<>();
        long documentTokens = 0;
        for (List<TextRun> scopeRuns : content.scopes().values()) {
            for (TextRun run : scopeRuns) {
                TokenizedText t = encoder.tokenizeText(run.text());
                tokenized.put(run, t);
                documentTokens += t.size();
            }
        }
        List<String> queries = task.queryTexts(content);
        List<long[]> queryIds = new ArrayList<>();
        for (String q : queries) {
            long[] ids = encoder.tokenizeText(q).ids();
            queryIds.add(ids);
            documentTokens += ids.length;
        }
        runs.add(
                timer.run(
                        "tokenize",
                        "tokenize",
                        null,
                        tokenized.size() + queries.size(),
                        documentTokens,
                        null,
                        null));

        // chunk/<scope>
        List<Chunk> chunks = new ArrayList<>();
        for (Map.Entry<String, List<TextRun>> scope : content.scopes().entrySet()) {
            timer.restart();
            int before = chunks.size();
            long tokens = 0;
            for (TextRun run : scope.getValue()) {
                for (Chunk c :
                        chunkers.get(scope.getKey())
                                .chunk(scope.getKey(), source, run, tokenized.get(run))) {
                    chunks.add(c);
                    tokens += c.tokenIds().length;
                }
            }
            runs.add(
                    timer.run(
                            "chunk/" + scope.getKey(),
                            "chunk",
                            null,
                            chunks.size() - before,
                            tokens,
                            null,
                            null));
        }
        if (chunks.isEmpty()) {
            throw new IllegalArgumentException("The document has no text to analyse");
        }

        // encode: chunks and queries in one batch
        timer.restart();
        List<long[]> sequences = new ArrayList<>(chunks.size() + queryIds.size());
        chunks.forEach(c -> sequences.add(c.tokenIds()));
        sequences.addAll(queryIds);
        TokenBatch batch = encoder.batch(sequences);
        float[] hidden = encoder.encode(batch);
        long outputBytes = (long) hidden.length * Float.BYTES;
        runs.add(
                timer.run(
                        "encode",
                        "encode",
                        encoder.model().id(),
                        batch.batchSize(),
                        batch.realTokens(),
                        EncoderModel.forwardFlops(batch.batchSize(), batch.seqLen()),
                        batch.inputBytes() + outputBytes));

        // pool
        timer.restart();
        float[][] vectors = SentenceEncoder.pool(batch, hidden);
        long poolFlops =
                batch.realTokens() * EncoderModel.HIDDEN_SIZE
                        + 4L * batch.batchSize() * EncoderModel.HIDDEN_SIZE;
        runs.add(
                timer.run(
                        poolNode.nodeId(),
                        "pool",
                        null,
                        batch.batchSize(),
                        batch.realTokens(),
                        poolFlops,
                        outputBytes
                                + (long) batch.batchSize()
                                        * EncoderModel.HIDDEN_SIZE
                                        * Float.BYTES));

        // decode/<task>
        timer.restart();
        float[][] chunkVectors = java.util.Arrays.copyOfRange(vectors, 0, chunks.size());
        float[][] queryVectors =
                java.util.Arrays.copyOfRange(vectors, chunks.size(), vectors.length);
        TaskResult result =
                task.decode(
                        new TaskInput(
                                content,
                                chunks,
                                chunkVectors,
                                queries,
                                queryVectors,
                                encoder.model().id()),
                        plan.outputFormat());
        runs.add(
                timer.run(
                        decodeNode.nodeId(),
                        "decode",
                        null,
                        chunks.size(),
                        null,
                        result.flops(),
                        null));
        return new GraphRun(result.output(), runs);
    }

    private static final class Timer {
        private long startedAtMillis = System.currentTimeMillis();
        private long startNanos = System.nanoTime();

        void restart() {
            startedAtMillis = System.currentTimeMillis();
            startNanos = System.nanoTime();
        }

        NodeRun run(
                String nodeId,
                String kind,
                String model,
                int items,
                Long tokens,
                Long flops,
                Long bytes) {
            return new NodeRun(
                    nodeId,
                    kind,
                    model,
                    startedAtMillis,
                    System.nanoTime() - startNanos,
                    items,
                    tokens,
                    flops,
                    bytes);
        }
    }
}
