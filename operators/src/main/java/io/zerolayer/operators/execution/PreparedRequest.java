package io.zerolayer.operators.execution;

import io.zerolayer.gpu.SentenceEncoder;
import io.zerolayer.gpu.TokenizedText;
import io.zerolayer.operators.structure.DocumentContent;
import io.zerolayer.operators.structure.DocumentContent.TextRun;
import io.zerolayer.operators.tasks.Chunk;
import io.zerolayer.operators.tasks.DocumentTask;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A request's tokenized, chunked content on its way to the encoder. */
final class PreparedRequest {
    final int index;
    final CompiledGraph.BatchInput input;
    final List<NodeRun> runs = new ArrayList<>();
    final List<Chunk> chunks = new ArrayList<>();
    final List<String> queries;
    final List<long[]> sequences = new ArrayList<>();
    float[][] vectors;
    long encodeTokens;
    long encodeFlops;
    long encodeInBytes;
    long encodeOutBytes;
    long poolTokens;

    /** Sequences this request's own encoder runs encoded (not those another request shared). */
    int encodedSequences;

    /** Sequences the embedding cache gave, their real tokens, and the lookups' time. */
    int cacheHits;

    long cacheTokens;
    long cacheNanos;

    PreparedRequest(int index, CompiledGraph.BatchInput input, List<String> queries) {
        this.index = index;
        this.input = input;
        this.queries = queries;
    }

    /** tokenize and chunk for one request of a graph: every scope is chunked alike. */
    static PreparedRequest prepare(
            int index,
            CompiledGraph.BatchInput input,
            Chunker chunker,
            SentenceEncoder encoder,
            DocumentTask task) {
        DocumentContent content = input.content();
        PreparedRequest p = new PreparedRequest(index, input, task.queryTexts(content));

        // tokenize: every document run and every query, no truncation
        NodeTimer timer = new NodeTimer();
        Map<TextRun, TokenizedText> tokenized = new LinkedHashMap<>();
        long documentTokens = 0;
        for (List<TextRun> scopeRuns : content.scopes().values()) {
            for (TextRun run : scopeRuns) {
                TokenizedText t = encoder.tokenizeText(run.text());
                tokenized.put(run, t);
                documentTokens += t.size();
            }
        }
        List<long[]> queryIds = new ArrayList<>();
        for (String q : p.queries) {
            long[] ids =
                    task.queriesSearchPassages()
                            ? encoder.queryIds(q)
                            : encoder.tokenizeText(q).ids();
            queryIds.add(ids);
            documentTokens += ids.length;
        }
        p.runs.add(
                timer.run(
                        "tokenize",
                        "tokenize",
                        null,
                        tokenized.size() + p.queries.size(),
                        documentTokens,
                        null,
                        null));

        // chunk: each run by itself, so no chunk crosses a scope
        timer.restart();
        long chunkTokens = 0;
        for (Map.Entry<String, List<TextRun>> scope : content.scopes().entrySet()) {
            for (TextRun run : scope.getValue()) {
                for (Chunk c :
                        chunker.chunk(scope.getKey(), input.source(), run, tokenized.get(run))) {
                    p.chunks.add(c);
                    chunkTokens += c.tokenIds().length;
                }
            }
        }
        p.runs.add(timer.run("chunk", "chunk", null, p.chunks.size(), chunkTokens, null, null));
        if (p.chunks.isEmpty()) {
            throw new IllegalArgumentException("The document has no text to analyse");
        }
        p.chunks.forEach(c -> p.sequences.add(encoder.passageIds(c.tokenIds())));
        p.sequences.addAll(queryIds);
        p.vectors = new float[p.sequences.size()][];
        return p;
    }
}
