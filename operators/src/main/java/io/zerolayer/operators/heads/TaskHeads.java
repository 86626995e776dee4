package io.zerolayer.operators.heads;

import io.zerolayer.gpu.EncoderModel;
import io.zerolayer.operators.contracts.LabelledExamples;
import io.zerolayer.operators.contracts.TaskContract;
import io.zerolayer.operators.contracts.TaskContracts;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The heads of the tasks that carry labelled examples, one per task and encoder tier, fit when the
 * compiler first asks for them: the examples and the labels' names are embedded by that tier
 * ({@link ExampleFeatures}) and a head is fit and cross-validated on them ({@link HeadFitting}),
 * leaning on the names as far as the examples show they help. A fit is kept in this JVM by the
 * examples' content hash and the tier's checksum, so contracts reloaded with the same examples, and
 * every compiler of the process, reuse it.
 */
public final class TaskHeads {
    private static final Logger LOG = LoggerFactory.getLogger(TaskHeads.class);

    /**
     * How a tier turns texts into the vectors its heads read: exactly as a graph of that tier
     * encodes a document for a head (its sentences, token-weighted).
     */
    @FunctionalInterface
    public interface ExampleFeatures {
        float[][] features(EncoderModel model, List<String> texts);
    }

    /**
     * A task's head on one tier.
     *
     * @param model the tier whose vectors it reads
     * @param examples what it was fit on
     * @param fit the head and its cross-validated accuracy
     * @param fitMillis how long embedding and fitting took
     */
    public record TierHead(
            EncoderModel model, LabelledExamples examples, HeadFitting.Fit fit, long fitMillis) {
        public ClassifierHead head() {
            return fit.head();
        }
    }

    private final Map<String, LabelledExamples> byTask;
    private final Map<String, Double> minProbability;
    private final ExampleFeatures features;
    private final java.util.Set<EncoderModel> tiers;

    private TaskHeads(
            Map<String, LabelledExamples> byTask,
            Map<String, Double> minProbability,
            ExampleFeatures features,
            java.util.Set<EncoderModel> tiers) {
        this.byTask = byTask;
        this.minProbability = minProbability;
        this.features = features;
        this.tiers = tiers;
    }

    /** Whether heads are fit on {@code model}: every tier, unless made for some only. */
    public boolean fits(EncoderModel model) {
        return tiers == null || tiers.contains(model);
    }

    /** The heads of {@code contracts}' tasks that carry examples, embedded by {@code features}. */
    public static TaskHeads of(TaskContracts contracts, ExampleFeatures features) {
        Map<String, LabelledExamples> byTask = new LinkedHashMap<>();
        Map<String, Double> minProbability = new LinkedHashMap<>();
        for (String name : contracts.taskNames()) {
            TaskContract task = contracts.task(name);
            if (task.examples() != null) {
                byTask.put(name, task.examples());
                minProbability.put(name, task.minProbability());
            }
        }
        return new TaskHeads(Map.copyOf(byTask), Map.copyOf(minProbability), features, null);
    }

    /**
     * The head of one task, {@code task}, with {@code examples}: what {@code zerolayer eval
     * --shots} compiles each split of a corpus with, on {@code tiers} only.
     */
    public static TaskHeads of(
            String task,
            LabelledExamples examples,
            double minProbability,
            ExampleFeatures features,
            Set<EncoderModel> tiers) {
        return new TaskHeads(
                Map.of(task, examples), Map.of(task, minProbability), features, Set.copyOf(tiers));
    }

    /** The probability below which {@code task}'s head answers {@code unknown}; NaN for none. */
    public double minProbability(String task) {
        return minProbability.getOrDefault(task, Double.NaN);
    }

    /** Whether {@code task} has examples, and so a head on every tier. */
    public boolean has(String task) {
        return byTask.containsKey(task);
    }

    /** The examples of {@code task}, or null. */
    public LabelledExamples examples(String task) {
        return byTask.get(task);
    }

    /**
     * {@code task}'s head on {@code model}, fit now or found fit.
     *
     * @throws IllegalArgumentException when the task has no examples, or heads are not fit on
     *     {@code model}
     */
    public TierHead head(String task, EncoderModel model) {
        LabelledExamples examples = byTask.get(task);
        if (examples == null) {
            throw new IllegalArgumentException("Task '" + task + "' has no examples");
        }
        if (!fits(model)) {
            throw new IllegalArgumentException("No heads are fit on " + model.id());
        }
        String key = examples.sha256() + "|" + model.id() + "|" + model.sha256();
        TierHead known = FITS.get(key);
        if (known != null) {
            return known;
        }
        synchronized (FITS) { // one fit at a time: each uses every core the encoder has
            known = FITS.get(key);
            if (known != null) {
                return known;
            }
            if (FITS.size() >= KEPT_FITS) {
                FITS.clear();
            }
            TierHead fit = fit(task, examples, model);
            FITS.put(key, fit);
            return fit;
        }
    }

    private TierHead fit(String task, LabelledExamples examples, EncoderModel model) {
        long start = System.nanoTime();
        List<String> texts = new ArrayList<>();
        int[] y = new int[examples.examples().size()];
        for (int i = 0; i < y.length; i++) {
            LabelledExamples.Example e = examples.examples().get(i);
            texts.add(e.text());
            y[i] = examples.labels().indexOf(e.label());
        }
        float[][] x = features.features(model, texts);
        // the labels' names embedded as the zero-shot classifier embeds them: one unit vector each
        float[][] names = features.features(model, examples.labels());
        for (float[] v : names) {
            io.zerolayer.gpu.Pooling.normalize(v);
        }
        HeadFitting.Fit fit =
                HeadFitting.fit(x, y, examples.labels(), names, seed(examples.sha256()));
        long millis = (System.nanoTime() - start) / 1_000_000;
        LOG.info(
                "Fit the head of task '{}' on {}: {} examples of {} labels, {} cross-validated at"
                        + " {} ({}-fold), in {} ms",
                task,
                model.id(),
                y.length,
                examples.labels().size(),
                fit.candidate(),
                String.format(java.util.Locale.ROOT, "%.3f", fit.accuracy().value()),
                fit.folds(),
                millis);
        return new TierHead(model, examples, fit, millis);
    }

    /** The folds' seed: the examples' own hash, so the same examples always split alike. */
    static long seed(String sha256) {
        return Long.parseUnsignedLong(sha256.substring(0, 15), 16);
    }

    /** Fits a JVM keeps: tasks with examples × tiers × contract versions, a handful. */
    static final int KEPT_FITS = 256;

    private static final Map<String, TierHead> FITS =
            new java.util.concurrent.ConcurrentHashMap<>();
}
