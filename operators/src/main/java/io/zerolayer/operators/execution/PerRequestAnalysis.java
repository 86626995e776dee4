package io.zerolayer.operators.execution;

import io.zerolayer.gpu.Pooling;
import io.zerolayer.gpu.SentenceEncoder;
import io.zerolayer.gpu.TokenBatch;
import io.zerolayer.gpu.TokenizedText;
import io.zerolayer.operators.compiler.EncoderRuns;
import io.zerolayer.operators.compiler.GraphCompiler;
import io.zerolayer.operators.prompt.ParsedPrompt;
import io.zerolayer.operators.structure.DocumentContent;
import io.zerolayer.operators.structure.DocumentContent.TextRun;
import io.zerolayer.operators.tasks.Chunk;
import io.zerolayer.operators.tasks.DocumentTask;
import io.zerolayer.operators.tasks.PostDecodeNode;
import io.zerolayer.operators.tasks.TaskInput;
import io.zerolayer.operators.tasks.TaskResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Document analysis the way a hand-written Flink map function does it, one request at a time:
 * tokenize, chunk, encode this request's sequences (shortest first, in the runs a graph cuts),
 * pool, decode, then the post-decode steps. The same decoders, chunk sizes and post-decode steps as
 * a compiled graph, so a baseline computes the same answer with the same encoder work — only
 * without compilation, warm graphs or batching across requests.
 */
public final class PerRequestAnalysis {

    private PerRequestAnalysis() {}

    /**
     * A request's answer and what its decoder worked on.
     *
     * @param output the task's output, post-decode steps applied
     * @param input the chunks, query texts and their vectors
     * @param encodedTokens real tokens this request ran through the encoder (cache hits not)
     * @param encodeNanos time in the encoder's runs
     * @param encodeFlops FLOPs of those runs, padding included
     */
    public record Analysis(
            String output,
            TaskInput input,
            long encodedTokens,
            long encodeNanos,
            long encodeFlops) {}

    /**
     * @param decoder the task's decoder (summarize, classify, answer, embed, extract)
     * @param strict strict compliance: redaction and audit run after the decoder
     * @return the task's output in {@code outputFormat}
     */
    public static String analyse(
            ParsedPrompt prompt,
            String decoder,
            String outputFormat,
            boolean strict,
            SentenceEncoder encoder) {
        return analyse(prompt, decoder, outputFormat, strict, encoder, null).output();
    }

    /**
     * As {@link #analyse(ParsedPrompt, String, String, boolean, SentenceEncoder)}, taking the
     * vectors of sequences already in {@code vectors} from there and putting those it encodes there
     * (null: no reuse) — for an evaluation that asks many questions of one document.
     */
    public static Analysis analyse(
            ParsedPrompt prompt,
            String decoder,
            String outputFormat,
            boolean strict,
            SentenceEncoder encoder,
            Map<java.nio.LongBuffer, float[]> cache) {
        DocumentContent content = DocumentContent.of(prompt);
        DocumentTask task = DocumentTask.forName(decoder);
        Chunker chunker =
                new Chunker(
                        GraphCompiler.strategyOf(decoder),
                        GraphCompiler.WINDOW_TOKENS,
                        GraphCompiler.WINDOW_STRIDE);
        List<Chunk> chunks = new ArrayList<>();
        for (Map.Entry<String, List<TextRun>> scope : content.scopes().entrySet()) {
            for (TextRun run : scope.getValue()) {
                TokenizedText tokens = encoder.tokenizeText(run.text());
                chunks.addAll(chunker.chunk(scope.getKey(), prompt.source(), run, tokens));
            }
        }
        if (chunks.isEmpty()) {
            throw new IllegalArgumentException("The document has no text to analyse");
        }
        List<String> queries = task.queryTexts(content);
        List<long[]> sequences = new ArrayList<>(chunks.size() + queries.size());
        // as PreparedRequest frames them: the model's passage and query prefixes
        chunks.forEach(c -> sequences.add(encoder.passageIds(c.tokenIds())));
        for (String q : queries) {
            sequences.add(
                    task.queriesSearchPassages()
                            ? encoder.queryIds(q)
                            : encoder.tokenizeText(q).ids());
        }
        float[][] vectors = new float[sequences.size()][];
        // shortest first and cut as a graph run cuts them: the same runs, so the same padding
        // and (for the int8 encoder, whose quantization scale is per run) the same vectors
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < sequences.size(); i++) {
            float[] known =
                    cache == null ? null : cache.get(java.nio.LongBuffer.wrap(sequences.get(i)));
            if (known != null) {
                vectors[i] = known;
            } else {
                order.add(i);
            }
        }
        order.sort(java.util.Comparator.comparingInt(i -> sequences.get(i).length));
        long tokens = 0;
        long nanos = 0;
        long flops = 0;
        for (List<Integer> run : EncoderRuns.split(order, i -> sequences.get(i).length)) {
            TokenBatch batch = encoder.batch(run.stream().map(sequences::get).toList());
            long start = System.nanoTime();
            float[] states = encoder.encode(batch);
            nanos += System.nanoTime() - start;
            tokens += batch.realTokens();
            flops += encoder.model().forwardFlops(batch.batchSize(), batch.seqLen());
            float[][] pooled = Pooling.pool(encoder.model(), batch, states);
            for (int k = 0; k < run.size(); k++) {
                vectors[run.get(k)] = pooled[k];
                if (cache != null) {
                    cache.put(java.nio.LongBuffer.wrap(sequences.get(run.get(k))), pooled[k]);
                }
            }
        }
        int n = chunks.size();
        TaskInput input =
                new TaskInput(
                        content,
                        chunks,
                        java.util.Arrays.copyOfRange(vectors, 0, n),
                        queries,
                        java.util.Arrays.copyOfRange(vectors, n, vectors.length),
                        encoder.model().id());
        TaskResult result = task.decode(input, outputFormat);
        String output = result.output();
        List<String> post = new ArrayList<>();
        if (decoder.equals("classify")) {
            post.add("evidence");
        }
        if (strict) {
            post.add("redact");
            post.add("audit");
        }
        for (String kind : post) {
            output =
                    PostDecodeNode.forKind(kind)
                            .apply(
                                    input,
                                    output,
                                    outputFormat,
                                    new PostDecodeNode.Context(
                                            "none", prompt.source(), encoder.checksum()))
                            .output();
        }
        return new Analysis(output, input, tokens, nanos, flops);
    }
}
