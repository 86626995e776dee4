package io.zerolayer.operators.tasks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.zerolayer.gpu.EncoderModel;
import io.zerolayer.gpu.Pooling;
import io.zerolayer.gpu.SentenceEncoder;
import io.zerolayer.operators.structure.DocumentContent;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The summary's similarity products through a Gram-matrix operator (what cuBLAS computes on a GPU)
 * pick the same sentences as the decoder's own loops.
 */
class ExtractiveSummaryTest {
    @Test
    void aGramOperatorGivesTheSameSummaryAsTheCpuLoops() {
        List<String> sentences =
                List.of(
                        "The parcel arrived two weeks late.",
                        "The box was crushed and the lamp inside was broken.",
                        "I asked for a refund by e-mail on Monday.",
                        "Nobody answered my e-mail.",
                        "The weather was nice that week.",
                        "I want my money back for the broken lamp.");
        List<Chunk> chunks = new ArrayList<>();
        int offset = 0;
        for (String s : sentences) {
            chunks.add(new Chunk("body", new long[] {1, 2, 3}, offset, offset + s.length(), s));
            offset += s.length() + 1;
        }
        float[][] vectors;
        try (SentenceEncoder encoder = SentenceEncoder.open(EncoderModel.MINILM_L6_V2_FP32, 1)) {
            vectors = encoder.embed(sentences);
        }
        DocumentContent content = DocumentContent.plainText(String.join(" ", sentences));
        int[] calls = new int[1];
        java.util.function.UnaryOperator<float[][]> gram =
                v -> {
                    calls[0]++;
                    float[][] g = new float[v.length][v.length];
                    for (int i = 0; i < v.length; i++) {
                        for (int j = 0; j < v.length; j++) {
                            g[i][j] = (float) Pooling.cosine(v[i], v[j]);
                        }
                    }
                    return g;
                };
        ExtractiveSummary summary = new ExtractiveSummary();
        String loops =
                summary.decode(
                                new TaskInput(
                                        content, chunks, vectors, List.of(), new float[0][], "m"),
                                "text")
                        .output();
        String viaGram =
                summary.decode(
                                new TaskInput(
                                        content,
                                        chunks,
                                        vectors,
                                        List.of(),
                                        new float[0][],
                                        "m",
                                        gram),
                                "text")
                        .output();
        assertThat(calls[0]).isEqualTo(1);
        assertThat(viaGram).isEqualTo(loops);
        assertThat(loops).doesNotContain("weather"); // the outlier is never central
    }

    @Test
    void centralitiesFromTheSumOfAllVectorsEqualThePairwiseSums() {
        java.util.Random random = new java.util.Random(7);
        for (int n : new int[] {1, 2, 37, 400}) {
            float[][] v = new float[n][];
            for (int i = 0; i < n; i++) {
                v[i] = RandomUnitVectors.next(random);
            }
            double[] pairwise = new double[n];
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < n; j++) {
                    if (j != i) {
                        pairwise[i] += Pooling.cosine(v[i], v[j]);
                    }
                }
            }
            double[] fromSum = ExtractiveSummary.centralities(v);
            for (int i = 0; i < n; i++) {
                assertThat(fromSum[i]).as("n=%d, i=%d", n, i).isCloseTo(pairwise[i], within(1e-4));
            }
        }
    }
}
