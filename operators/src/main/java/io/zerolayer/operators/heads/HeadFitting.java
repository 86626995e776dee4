package io.zerolayer.operators.heads;

import de.bwaldvogel.liblinear.Feature;
import de.bwaldvogel.liblinear.FeatureNode;
import de.bwaldvogel.liblinear.Linear;
import de.bwaldvogel.liblinear.Model;
import de.bwaldvogel.liblinear.Parameter;
import de.bwaldvogel.liblinear.Problem;
import de.bwaldvogel.liblinear.SolverType;
import io.zerolayer.operators.quality.Interval;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Fits a {@link ClassifierHead} on labelled vectors and measures it. Each candidate — nearest
 * centroid, and logistic regression (liblinear's L2-regularised primal solver, one label against
 * the rest) at a few regularisation strengths, each with or without the label names' zero-shot
 * logits as a prior, and the names alone — is scored by stratified k-fold cross-validation (k = 5,
 * or fewer when a label has fewer examples); the candidate with the most held-out items right is
 * fit on all the examples. Its softmax temperature is the one that gives the held-out predictions
 * the least log-loss ({@link #temperature}), so its probabilities mean what they say. Everything is
 * deterministic: folds come from a seeded shuffle, and liblinear's solver is a Newton method.
 *
 * <p>Choosing among the candidates by the same folds that measure them makes the reported accuracy
 * optimistic, and a few dozen examples measure it only roughly: on the eval's corpora the
 * cross-validated figure and the held-out one differed by up to five points, either way ({@code
 * zerolayer eval --shots} prints both).
 */
public final class HeadFitting {
    private HeadFitting() {}

    /** Most folds of the cross-validation. */
    static final int FOLDS = 5;

    /** The logistic candidates' inverse regularisation strengths. */
    static final double[] LOGISTIC_C = {1, 10, 100, 1000};

    /** Softmax temperatures tried for the calibration, log-spaced. */
    private static final double[] TEMPERATURES = temperatures();

    static {
        Linear.disableDebugOutput();
    }

    /**
     * What a fit came to.
     *
     * @param head the head fit on every example, temperature included
     * @param candidate which candidate it is ({@code logistic C=10}, {@code centroid})
     * @param accuracy the candidate's cross-validated accuracy, with its Wilson interval
     * @param byCandidate every candidate's cross-validated accuracy
     * @param folds how many folds measured them
     */
    public record Fit(
            ClassifierHead head,
            String candidate,
            Interval accuracy,
            Map<String, Interval> byCandidate,
            int folds) {}

    /**
     * @param x one feature vector per example
     * @param y each example's label, an index into {@code labels}
     * @param labels the classes; every one has at least 2 examples
     * @param seed the folds' shuffle
     */
    public static Fit fit(float[][] x, int[] y, List<String> labels, long seed) {
        return fit(x, y, labels, null, seed);
    }

    /**
     * A fit that may lean on the labels' names: each candidate's logits plus β times the zero-shot
     * logits (each label name's unit vector against the document's, at the zero-shot temperature
     * {@value #ZERO_SHOT_TEMPERATURE}), β from {@link #PRIOR_WEIGHTS} chosen by the same folds, and
     * the names alone as one more candidate. Still a linear head: the prior adds β/T × the name's
     * vector to the label's weights.
     *
     * @param names each label's name embedded by the tier, a unit vector per label; null for none
     */
    public static Fit fit(float[][] x, int[] y, List<String> labels, float[][] names, long seed) {
        int[] counts = new int[labels.size()];
        for (int label : y) {
            counts[label]++;
        }
        int fewest = java.util.Arrays.stream(counts).min().orElse(0);
        if (fewest < 2) {
            throw new IllegalArgumentException("Every label needs 2 examples to fit a head");
        }
        int folds = Math.min(FOLDS, fewest);
        int[] fold = folds(y, labels.size(), folds, seed);
        double[][] prior = names == null ? null : zeroShot(names, x);
        Map<String, Interval> byCandidate = new LinkedHashMap<>();
        String best = null;
        double bestWeight = 0;
        int bestRight = -1;
        double[][] bestHeldOut = null;
        for (String candidate : candidates()) {
            double[][] heldOut = new double[x.length][];
            for (int f = 0; f < folds; f++) {
                List<Integer> train = new ArrayList<>();
                for (int i = 0; i < x.length; i++) {
                    if (fold[i] != f) {
                        train.add(i);
                    }
                }
                ClassifierHead h = fitOne(candidate, x, y, train, labels);
                for (int i = 0; i < x.length; i++) {
                    if (fold[i] == f) {
                        heldOut[i] = h.logits(x[i]);
                    }
                }
            }
            String bestOfCandidate = null;
            int rightOfCandidate = -1;
            for (double weight : prior == null ? new double[] {0} : PRIOR_WEIGHTS) {
                double[][] blended = blend(heldOut, prior, weight);
                int right = 0;
                for (int i = 0; i < x.length; i++) {
                    right += argmax(blended[i]) == y[i] ? 1 : 0;
                }
                String name = named(candidate, weight);
                if (right > rightOfCandidate) {
                    bestOfCandidate = name;
                    rightOfCandidate = right;
                }
                if (right > bestRight) {
                    best = candidate;
                    bestWeight = weight;
                    bestRight = right;
                    bestHeldOut = blended;
                }
            }
            byCandidate.put(bestOfCandidate, Interval.proportion(rightOfCandidate, x.length));
        }
        if (prior != null) { // the names alone: zero-shot, as a candidate the examples measure
            int right = 0;
            for (int i = 0; i < x.length; i++) {
                right += argmax(prior[i]) == y[i] ? 1 : 0;
            }
            byCandidate.put(NAMES_ONLY, Interval.proportion(right, x.length));
            if (right > bestRight) {
                best = NAMES_ONLY;
                bestRight = right;
                bestHeldOut = prior;
            }
        }
        double temperature = temperature(bestHeldOut, y);
        List<Integer> all = new ArrayList<>();
        for (int i = 0; i < x.length; i++) {
            all.add(i);
        }
        ClassifierHead head;
        String chosen;
        if (NAMES_ONLY.equals(best)) {
            head = withNames(zeroHead(labels, x[0].length), names, 1, "names");
            chosen = NAMES_ONLY;
        } else {
            head = withNames(fitOne(best, x, y, all, labels), names, bestWeight, null);
            chosen = named(best, bestWeight);
        }
        return new Fit(
                scaled(head, 1 / temperature),
                chosen,
                Interval.proportion(bestRight, x.length),
                Map.copyOf(byCandidate),
                folds);
    }

    /** The zero-shot classifier's temperature, which the names' logits are scaled by. */
    static final double ZERO_SHOT_TEMPERATURE = 0.05;

    /** How much of the label names' zero-shot logits a head may add to its own. */
    static final double[] PRIOR_WEIGHTS = {0, 0.25, 0.5, 1, 2};

    /** The candidate that classifies by the label names alone. */
    static final String NAMES_ONLY = "label names";

    private static String named(String candidate, double weight) {
        return weight == 0
                ? candidate
                : candidate
                        + " + names×"
                        + (weight == (long) weight
                                ? String.valueOf((long) weight)
                                : String.valueOf(weight));
    }

    /** Each example's zero-shot logits: its cosine to each name, over the temperature. */
    private static double[][] zeroShot(float[][] names, float[][] x) {
        ClassifierHead byNames = withNames(zeroHead(names.length, x[0].length), names, 1, "names");
        double[][] out = new double[x.length][];
        for (int i = 0; i < x.length; i++) {
            out[i] = byNames.logits(x[i]);
        }
        return out;
    }

    private static double[][] blend(double[][] logits, double[][] prior, double weight) {
        if (weight == 0) {
            return logits;
        }
        double[][] out = new double[logits.length][];
        for (int i = 0; i < logits.length; i++) {
            out[i] = logits[i].clone();
            for (int l = 0; l < out[i].length; l++) {
                out[i][l] += weight * prior[i][l];
            }
        }
        return out;
    }

    private static ClassifierHead zeroHead(List<String> labels, int dims) {
        return new ClassifierHead(
                "names", labels, new float[labels.size()][dims], new float[labels.size()]);
    }

    private static ClassifierHead zeroHead(int labels, int dims) {
        List<String> names = new ArrayList<>();
        for (int l = 0; l < labels; l++) {
            names.add(String.valueOf(l));
        }
        return zeroHead(names, dims);
    }

    /** {@code head} with {@code weight}/T × each name's vector added to its label's weights. */
    private static ClassifierHead withNames(
            ClassifierHead head, float[][] names, double weight, String kind) {
        if (names == null || weight == 0) {
            return head;
        }
        double factor = weight / ZERO_SHOT_TEMPERATURE;
        float[][] w = new float[head.weights().length][];
        for (int l = 0; l < w.length; l++) {
            w[l] = head.weights()[l].clone();
            for (int k = 0; k < w[l].length; k++) {
                w[l][k] += (float) (factor * names[l][k]);
            }
        }
        return new ClassifierHead(
                kind != null ? kind : head.kind() + "+names", head.labels(), w, head.bias());
    }

    /** The candidates, in the order a tie is won. */
    static List<String> candidates() {
        List<String> out = new ArrayList<>();
        for (double c : LOGISTIC_C) {
            out.add("logistic C=" + (long) c);
        }
        out.add("centroid");
        return out;
    }

    /** Stratified folds: each label's examples shuffled by {@code seed}, dealt round the folds. */
    static int[] folds(int[] y, int labels, int folds, long seed) {
        int[] fold = new int[y.length];
        Random random = new Random(seed);
        for (int l = 0; l < labels; l++) {
            List<Integer> members = new ArrayList<>();
            for (int i = 0; i < y.length; i++) {
                if (y[i] == l) {
                    members.add(i);
                }
            }
            java.util.Collections.shuffle(members, random);
            for (int k = 0; k < members.size(); k++) {
                fold[members.get(k)] = (k + l) % folds;
            }
        }
        return fold;
    }

    private static ClassifierHead fitOne(
            String candidate, float[][] x, int[] y, List<Integer> rows, List<String> labels) {
        return candidate.equals("centroid")
                ? centroid(x, y, rows, labels)
                : logistic(
                        x,
                        y,
                        rows,
                        labels,
                        Double.parseDouble(candidate.substring(candidate.indexOf('=') + 1)));
    }

    /**
     * Nearest centroid as a linear head: the closest class mean by Euclidean distance is the one of
     * largest {@code c·v − |c|²/2}.
     */
    static ClassifierHead centroid(float[][] x, int[] y, List<Integer> rows, List<String> labels) {
        int dims = x[0].length;
        double[][] sum = new double[labels.size()][dims];
        int[] n = new int[labels.size()];
        for (int i : rows) {
            n[y[i]]++;
            for (int k = 0; k < dims; k++) {
                sum[y[i]][k] += x[i][k];
            }
        }
        float[][] w = new float[labels.size()][dims];
        float[] b = new float[labels.size()];
        for (int l = 0; l < labels.size(); l++) {
            double norm = 0;
            for (int k = 0; k < dims; k++) {
                double c = n[l] == 0 ? 0 : sum[l][k] / n[l];
                w[l][k] = (float) c;
                norm += c * c;
            }
            b[l] = (float) (-norm / 2);
        }
        return new ClassifierHead("centroid", labels, w, b);
    }

    /** Logistic regression, one label against the rest, at inverse regularisation {@code c}. */
    static ClassifierHead logistic(
            float[][] x, int[] y, List<Integer> rows, List<String> labels, double c) {
        int dims = x[0].length;
        Problem problem = new Problem();
        problem.l = rows.size();
        problem.n = dims + 1;
        problem.bias = 1;
        problem.x = new Feature[rows.size()][];
        problem.y = new double[rows.size()];
        for (int r = 0; r < rows.size(); r++) {
            float[] v = x[rows.get(r)];
            Feature[] features = new Feature[dims + 1];
            for (int k = 0; k < dims; k++) {
                features[k] = new FeatureNode(k + 1, v[k]);
            }
            features[dims] = new FeatureNode(dims + 1, 1);
            problem.x[r] = features;
            problem.y[r] = y[rows.get(r)];
        }
        Model model;
        synchronized (Linear.class) { // liblinear keeps its random source and output in statics
            Linear.resetRandom();
            model = Linear.train(problem, new Parameter(SolverType.L2R_LR, c, 0.01));
        }
        double[] flat = model.getFeatureWeights();
        int[] classes = model.getLabels();
        int columns = classes.length == 2 ? 1 : classes.length;
        float[][] w = new float[labels.size()][dims];
        float[] b = new float[labels.size()];
        // labels with no training row (never, with stratified folds) keep logit 0
        for (int col = 0; col < classes.length; col++) {
            int label = classes[col];
            double sign = 1;
            int source = col;
            if (columns
                    == 1) { // binary: one column, for the first class; the other is its negative
                source = 0;
                sign = col == 0 ? 1 : -1;
            }
            for (int k = 0; k < dims; k++) {
                w[label][k] = (float) (sign * flat[k * columns + source]);
            }
            b[label] = (float) (sign * flat[dims * columns + source]);
        }
        return new ClassifierHead("logistic", labels, w, b);
    }

    private static ClassifierHead scaled(ClassifierHead h, double factor) {
        float[][] w = new float[h.weights().length][];
        float[] b = new float[h.bias().length];
        for (int l = 0; l < w.length; l++) {
            w[l] = new float[h.weights()[l].length];
            for (int k = 0; k < w[l].length; k++) {
                w[l][k] = (float) (h.weights()[l][k] * factor);
            }
            b[l] = (float) (h.bias()[l] * factor);
        }
        return new ClassifierHead(h.kind(), h.labels(), w, b);
    }

    /**
     * The temperature whose softmax gives the held-out logits the least cross-entropy against
     * targets smoothed by Laplace's rule of succession: after n held-out items, the next is wrong
     * with probability at least 1/(n + 2), so a held-out item's own label is given 1 − 1/(n + 2)
     * and the rest share the remainder. Without it, examples the folds all get right would drive
     * the temperature to zero and every answer, even to a text about nothing the task knows, to a
     * probability of 1.
     */
    static double temperature(double[][] logits, int[] y) {
        int labels = logits[0].length;
        double wrong = 1.0 / (logits.length + 2);
        double best = 1;
        double bestLoss = Double.POSITIVE_INFINITY;
        for (double t : TEMPERATURES) {
            double loss = 0;
            for (int i = 0; i < logits.length; i++) {
                double[] z = logits[i].clone();
                for (int l = 0; l < z.length; l++) {
                    z[l] /= t;
                }
                double[] p = ClassifierHead.probabilities(z);
                for (int l = 0; l < labels; l++) {
                    double target = l == y[i] ? 1 - wrong : wrong / (labels - 1);
                    loss -= target * Math.log(Math.max(p[l], 1e-12));
                }
            }
            if (loss < bestLoss) {
                bestLoss = loss;
                best = t;
            }
        }
        return best;
    }

    private static double[] temperatures() {
        double[] t = new double[49];
        for (int i = 0; i < t.length; i++) {
            t[i] = Math.pow(10, -3 + i / 8.0); // 0.001 … 1000
        }
        return t;
    }

    static int argmax(double[] v) {
        int best = 0;
        for (int i = 1; i < v.length; i++) {
            if (v[i] > v[best]) {
                best = i;
            }
        }
        return best;
    }
}
