package io.zerolayer.operators.execution;

import io.zerolayer.gpu.EncoderModel;
import io.zerolayer.gpu.Pooling;
import io.zerolayer.gpu.SentenceEncoder;
import io.zerolayer.gpu.TokenBatch;
import io.zerolayer.operators.compiler.GraphCompiler;
import io.zerolayer.operators.heads.TaskHeads;
import io.zerolayer.operators.structure.DocumentContent;
import io.zerolayer.operators.tasks.Chunk;
import io.zerolayer.operators.tasks.DocumentTask;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Embeds a task's labelled examples for its heads exactly as a classification graph of the tier
 * embeds a document: each text tokenized and cut into sentences by the graph's chunker, each
 * sentence encoded (on the CPU sessions of the slot's pool) and pooled, and the sentence vectors
 * averaged with each weighted by its tokens — the vector whose logits {@link
 * io.zerolayer.operators.tasks.HeadScores} averages the same way. The encoders are batch invariant,
 * so how the sentences are batched here does not change a vector.
 */
public final class ExampleEmbedder implements TaskHeads.ExampleFeatures {
    /** Sentences encoded in one run. */
    static final int RUN = 32;

    private final EncoderPool encoders;

    public ExampleEmbedder(EncoderPool encoders) {
        this.encoders = encoders;
    }

    @Override
    public float[][] features(EncoderModel model, List<String> texts) {
        SentenceEncoder encoder = encoders.get(model);
        Chunker chunker =
                new Chunker(
                        GraphCompiler.HEAD_STRATEGY,
                        GraphCompiler.WINDOW_TOKENS,
                        GraphCompiler.WINDOW_STRIDE);
        DocumentTask head = DocumentTask.headClassification(Double.NaN); // no query texts
        List<PreparedRequest> prepared = new ArrayList<>();
        List<int[]> sequences = new ArrayList<>(); // {text, chunk}
        for (int t = 0; t < texts.size(); t++) {
            PreparedRequest p =
                    PreparedRequest.prepare(
                            t,
                            new CompiledGraph.BatchInput(
                                    texts.get(t), DocumentContent.plainText(texts.get(t))),
                            chunker,
                            encoder,
                            head);
            prepared.add(p);
            for (int c = 0; c < p.sequences.size(); c++) {
                sequences.add(new int[] {t, c});
            }
        }
        sequences.sort(Comparator.comparingInt(s -> prepared.get(s[0]).sequences.get(s[1]).length));
        for (int from = 0; from < sequences.size(); from += RUN) {
            List<int[]> run = sequences.subList(from, Math.min(sequences.size(), from + RUN));
            List<long[]> ids = new ArrayList<>(run.size());
            run.forEach(s -> ids.add(prepared.get(s[0]).sequences.get(s[1])));
            TokenBatch batch = encoder.batch(ids);
            float[][] vectors = Pooling.pool(model, batch, encoder.encode(batch));
            for (int k = 0; k < run.size(); k++) {
                prepared.get(run.get(k)[0]).vectors[run.get(k)[1]] = vectors[k];
            }
        }
        float[][] out = new float[texts.size()][];
        for (int t = 0; t < texts.size(); t++) {
            PreparedRequest p = prepared.get(t);
            double total = p.chunks.stream().mapToInt(c -> c.tokenIds().length).sum();
            double[] mean = new double[model.hiddenSize()];
            for (int c = 0; c < p.chunks.size(); c++) {
                Chunk chunk = p.chunks.get(c);
                double weight = chunk.tokenIds().length / total;
                float[] v = p.vectors[c];
                for (int k = 0; k < mean.length; k++) {
                    mean[k] += weight * v[k];
                }
            }
            out[t] = new float[mean.length];
            for (int k = 0; k < mean.length; k++) {
                out[t][k] = (float) mean[k];
            }
        }
        return out;
    }
}
