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

    PreparedRequest(int index, CompiledGraph.BatchInput input, List<String> queries) {
        this.index = index;
        this.input = input;
        this.queries = queries;
    }

    /** tokenize and chunk/&lt;scope&gt; for one request of a graph. */
    static PreparedRequest prepare(
            int index,
            CompiledGraph.BatchInput input,
            Map<String, Chunker> chunkers,
            SentenceEncoder encoder,
            DocumentTask task,
            String graphId) {
        DocumentContent content = input.content();
        if (!content.scopes().keySet().equals(chunkers.keySet())) {
            throw new IllegalArgumentException(
                    "Prompt scopes "
                            + content.scopes().keySet()
                            + " do not match graph "
                            + graphId
                            + " compiled for "
                            + chunkers.keySet());
        }
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
            long[] ids = encoder.tokenizeText(q).ids();
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

        // chunk/<scope>
        for (Map.Entry<String, List<TextRun>> scope : content.scopes().entrySet()) {
            timer.restart();
            int before = p.chunks.size();
            long tokens = 0;
            for (TextRun run : scope.getValue()) {
                for (Chunk c :
                        chunkers.get(scope.getKey())
                                .chunk(scope.getKey(), input.source(), run, tokenized.get(run))) {
                    p.chunks.add(c);
                    tokens += c.tokenIds().length;
                }
            }
            p.runs.add(
                    timer.run(
                            "chunk/" + scope.getKey(),
                            "chunk",
                            null,
                            p.chunks.size() - before,
                            tokens,
                            null,
                            null));
        }
        if (p.chunks.isEmpty()) {
            throw new IllegalArgumentException("The document has no text to analyse");
        }
        p.chunks.forEach(c -> p.sequences.add(c.tokenIds()));
        p.sequences.addAll(queryIds);
        p.vectors = new float[p.sequences.size()][];
        return p;
    }
}
