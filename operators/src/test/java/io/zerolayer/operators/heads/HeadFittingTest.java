package io.zerolayer.operators.heads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Heads fit on labelled vectors: measured by cross-validation, deterministic, calibrated. */
class HeadFittingTest {
    private static final List<String> LABELS = List.of("refund", "outage", "login");

    /** {@code perLabel} unit-ish vectors per label around its own direction, {@code noise} wide. */
    private static float[][] clusters(int perLabel, double noise, int[] y, long seed) {
        Random random = new Random(seed);
        int dims = 24;
        float[][] x = new float[perLabel * LABELS.size()][dims];
        for (int i = 0; i < x.length; i++) {
            y[i] = i % LABELS.size();
            for (int k = 0; k < dims; k++) {
                x[i][k] =
                        (float)
                                ((k % LABELS.size() == y[i] ? 0.3 : 0)
                                        + noise * random.nextGaussian());
            }
        }
        return x;
    }

    @Test
    void separableExamplesAreCrossValidatedRightAndTheHeadAnswersNewOnes() {
        int[] y = new int[30];
        float[][] x = clusters(10, 0.05, y, 1);
        HeadFitting.Fit fit = HeadFitting.fit(x, y, LABELS, 7);
        assertThat(fit.accuracy().value()).isGreaterThanOrEqualTo(0.95);
        assertThat(fit.folds()).isEqualTo(5);
        assertThat(fit.byCandidate()).containsKeys("centroid", "logistic C=10");
        int[] fresh = new int[30];
        float[][] unseen = clusters(10, 0.05, fresh, 2);
        int right = 0;
        for (int i = 0; i < unseen.length; i++) {
            right += HeadFitting.argmax(fit.head().logits(unseen[i])) == fresh[i] ? 1 : 0;
        }
        assertThat(right).isGreaterThanOrEqualTo(28);
        // calibrated on held-out predictions: confident where the data is this clean
        double[] p = ClassifierHead.probabilities(fit.head().logits(unseen[0]));
        assertThat(p[fresh[0]]).isGreaterThan(0.8);
    }

    @Test
    void labelsThatSayNothingAreCrossValidatedNearChance() {
        int[] y = new int[60];
        float[][] x = clusters(20, 0.05, y, 3);
        int[] shuffled = new int[y.length];
        Random random = new Random(11);
        for (int i = 0; i < shuffled.length; i++) {
            shuffled[i] = random.nextInt(LABELS.size());
        }
        fixEveryLabelHasTwo(shuffled);
        HeadFitting.Fit fit = HeadFitting.fit(x, shuffled, LABELS, 7);
        assertThat(fit.accuracy().value()).isLessThan(0.6);
        // and the probabilities say so: the temperature flattens them
        double[] p = ClassifierHead.probabilities(fit.head().logits(x[0]));
        assertThat(java.util.Arrays.stream(p).max().orElseThrow()).isLessThan(0.8);
    }

    @Test
    void theSameExamplesFitTheSameHeadBitForBit() {
        int[] y = new int[30];
        float[][] x = clusters(10, 0.2, y, 4);
        String first = HeadFitting.fit(x, y, LABELS, 9).head().sha256();
        assertThat(HeadFitting.fit(x, y, LABELS, 9).head().sha256()).isEqualTo(first);
        float[][] moved = x.clone();
        moved[0] = x[0].clone();
        moved[0][0] += 0.5f;
        assertThat(HeadFitting.fit(moved, y, LABELS, 9).head().sha256()).isNotEqualTo(first);
    }

    @Test
    void twoLabelsFitOneColumnForBoth() {
        List<String> two = List.of("spam", "ham");
        Random random = new Random(6);
        float[][] x = new float[20][8];
        int[] y = new int[20];
        for (int i = 0; i < x.length; i++) {
            y[i] = i % 2;
            for (int k = 0; k < 8; k++) {
                x[i][k] = (float) ((y[i] == 0 ? 1 : -1) * 0.2 + 0.05 * random.nextGaussian());
            }
        }
        HeadFitting.Fit fit = HeadFitting.fit(x, y, two, 1);
        assertThat(fit.accuracy().value()).isEqualTo(1.0);
        ClassifierHead logistic = HeadFitting.logistic(x, y, allRows(20), two, 10);
        for (int i = 0; i < x.length; i++) {
            assertThat(HeadFitting.argmax(logistic.logits(x[i]))).isEqualTo(y[i]);
        }
    }

    @Test
    void foldsAreStratifiedAndFewerWhenALabelHasFewExamples() {
        int[] y = {0, 0, 0, 1, 1, 2, 2, 2, 2, 2, 2};
        int[] folds = HeadFitting.folds(y, 3, 2, 1);
        for (int label = 0; label < 3; label++) {
            int inFirst = 0;
            int all = 0;
            for (int i = 0; i < y.length; i++) {
                if (y[i] == label) {
                    all++;
                    inFirst += folds[i] == 0 ? 1 : 0;
                }
            }
            assertThat(Math.abs(2 * inFirst - all)).isLessThanOrEqualTo(1);
        }
        float[][] x = new float[y.length][4];
        for (int i = 0; i < y.length; i++) {
            x[i][y[i]] = 1;
        }
        assertThat(HeadFitting.fit(x, y, LABELS, 1).folds()).isEqualTo(2);
        assertThatThrownBy(
                        () ->
                                HeadFitting.fit(
                                        x, new int[] {0, 0, 0, 1, 1, 2, 1, 1, 1, 1, 1}, LABELS, 1))
                .hasMessageContaining("2 examples");
    }

    private static List<Integer> allRows(int n) {
        List<Integer> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            rows.add(i);
        }
        return rows;
    }

    private static void fixEveryLabelHasTwo(int[] y) {
        for (int l = 0; l < LABELS.size(); l++) {
            y[2 * l] = l;
            y[2 * l + 1] = l;
        }
    }
}
