package io.zerolayer.operators.eval;

import io.zerolayer.gpu.EncoderModel;
import io.zerolayer.operators.compiler.CostEstimator;
import io.zerolayer.operators.compiler.ExecutionPlan;
import io.zerolayer.operators.compiler.GraphCompiler;
import io.zerolayer.operators.compiler.GraphIdentity;
import io.zerolayer.operators.compiler.PlanShape;
import io.zerolayer.operators.contracts.LabelledExamples;
import io.zerolayer.operators.execution.EncoderPool;
import io.zerolayer.operators.execution.ExampleEmbedder;
import io.zerolayer.operators.heads.ClassifierHead;
import io.zerolayer.operators.heads.TaskHeads;
import io.zerolayer.operators.quality.Interval;
import io.zerolayer.operators.quality.QualityFloor;
import io.zerolayer.operators.quality.QualityProfile;
import io.zerolayer.operators.structure.StructureSignature;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;

/**
 * Few-shot classification on the labelled corpora, as the compiler does it: for each number of
 * shots k and each seed, k items per label become the task's examples and the rest are held out;
 * the compiler fits and cross-validates a head on every tier and chooses the plan's tier from those
 * figures, and each head classifies the held-out items. Items are embedded once per tier by {@link
 * ExampleEmbedder}, the same vectors a graph's head reads (a head on the token-weighted mean of a
 * document's sentence vectors has the logits the graph averages from its sentences').
 *
 * <p>A (corpus, k) is left out when a label has fewer than k + 2 items: it would hold out one or
 * none.
 */
public final class FewShotEval {
    /**
     * @param tiers the encoders to fit heads on
     * @param shots examples per label, each number a run
     * @param seeds splits per number of shots
     * @param floor the quality floor the compiler chooses a tier by
     * @param estimator this machine's cost model, which the choice weighs tiers by
     * @param intraOpThreads ONNX Runtime threads per session; 0 lets it choose
     */
    public record Settings(
            List<EncoderModel> tiers,
            List<Integer> shots,
            int seeds,
            QualityFloor floor,
            CostEstimator estimator,
            int intraOpThreads) {}

    /**
     * One tier's head at one number of shots, over every seed.
     *
     * @param heldOut the held-out accuracy: the mean over seeds, with the Wilson interval of one
     *     seed's held-out items
     * @param crossValidated the mean cross-validated accuracy the compiler measured on the examples
     */
    public record TierFigure(EncoderModel model, Interval heldOut, double crossValidated) {}

    /**
     * One corpus at one number of shots.
     *
     * @param examples examples per split (shots × labels)
     * @param heldOut held-out items per split
     * @param tiers every tier's head
     * @param compiler the held-out accuracy of the tier the compiler chose in each split
     * @param picks how often the compiler chose each tier
     */
    public record ShotResult(
            String corpus,
            int shots,
            int examples,
            int heldOut,
            List<TierFigure> tiers,
            Interval compiler,
            Map<String, Integer> picks) {}

    private final Settings settings;
    private final Consumer<String> progress;

    public FewShotEval(Settings settings, Consumer<String> progress) {
        this.settings = settings;
        this.progress = progress;
    }

    public List<ShotResult> run(List<ClassificationCorpus> corpora) {
        List<ShotResult> out = new ArrayList<>();
        try (EncoderPool encoders = new EncoderPool(settings.intraOpThreads())) {
            ExampleEmbedder embedder = new ExampleEmbedder(encoders);
            for (ClassificationCorpus corpus : corpora) {
                out.addAll(corpus(corpus, embedder));
            }
        }
        return out;
    }

    private List<ShotResult> corpus(ClassificationCorpus corpus, ExampleEmbedder embedder) {
        // a task's labels are named as the zero-shot prompt names them
        List<String> keys = List.copyOf(corpus.hypotheses().keySet());
        List<String> labels = List.copyOf(corpus.hypotheses().values());
        List<String> texts = corpus.items().stream().map(LabelledText::text).toList();
        int[] y = corpus.items().stream().mapToInt(i -> keys.indexOf(i.label())).toArray();
        Map<String, Integer> index = new HashMap<>();
        for (int i = 0; i < texts.size(); i++) {
            index.putIfAbsent(texts.get(i), i);
        }
        Map<EncoderModel, float[][]> vectors = new LinkedHashMap<>();
        for (EncoderModel m : settings.tiers()) {
            long start = System.nanoTime();
            vectors.put(m, embedder.features(m, texts));
            progress.accept(
                    String.format(
                            java.util.Locale.ROOT,
                            "%-24s %-18s %d items embedded, %.0f s",
                            m.id(),
                            corpus.name(),
                            texts.size(),
                            (System.nanoTime() - start) / 1e9));
        }
        TaskHeads.ExampleFeatures known =
                (model, asked) -> {
                    float[][] all = vectors.get(model);
                    if (all == null) {
                        throw new IllegalArgumentException(model.id() + " is not measured");
                    }
                    float[][] out = new float[asked.size()][];
                    for (int i = 0; i < out.length; i++) {
                        Integer at = index.get(asked.get(i));
                        out[i] =
                                at != null
                                        ? all[at]
                                        : embedder.features(model, List.of(asked.get(i)))[0];
                    }
                    return out;
                };
        int[] counts = new int[labels.size()];
        for (int label : y) {
            counts[label]++;
        }
        int fewest = java.util.Arrays.stream(counts).min().orElse(0);
        int bucket =
                StructureSignature.sizeBucket(
                        (int)
                                texts.stream()
                                        .mapToInt(String::length)
                                        .sorted()
                                        .toArray()[texts.size() / 2]);
        List<ShotResult> out = new ArrayList<>();
        for (int k : settings.shots()) {
            if (fewest < k + 2) {
                progress.accept(
                        corpus.name()
                                + ": "
                                + k
                                + " shots left out, a label has only "
                                + fewest
                                + " items");
                continue;
            }
            out.add(shots(corpus, labels, texts, y, k, bucket, vectors, known));
        }
        return out;
    }

    private ShotResult shots(
            ClassificationCorpus corpus,
            List<String> labels,
            List<String> texts,
            int[] y,
            int k,
            int bucket,
            Map<EncoderModel, float[][]> vectors,
            TaskHeads.ExampleFeatures known) {
        String task = "eval-" + corpus.name();
        Map<EncoderModel, double[]> heldOut = new LinkedHashMap<>();
        Map<EncoderModel, double[]> crossValidated = new LinkedHashMap<>();
        settings.tiers()
                .forEach(
                        m -> {
                            heldOut.put(m, new double[settings.seeds()]);
                            crossValidated.put(m, new double[settings.seeds()]);
                        });
        double[] chosen = new double[settings.seeds()];
        Map<String, Integer> picks = new LinkedHashMap<>();
        int held = 0;
        for (int seed = 0; seed < settings.seeds(); seed++) {
            Random random = new Random(1_000L * k + seed);
            Map<String, List<String>> byLabel = new LinkedHashMap<>();
            List<Integer> test = new ArrayList<>();
            for (int l = 0; l < labels.size(); l++) {
                List<Integer> members = new ArrayList<>();
                for (int i = 0; i < y.length; i++) {
                    if (y[i] == l) {
                        members.add(i);
                    }
                }
                java.util.Collections.shuffle(members, random);
                List<String> shotTexts = new ArrayList<>();
                members.subList(0, k).forEach(i -> shotTexts.add(texts.get(i)));
                byLabel.put(labels.get(l), shotTexts);
                test.addAll(members.subList(k, members.size()));
            }
            held = test.size();
            TaskHeads heads =
                    TaskHeads.of(
                            task,
                            LabelledExamples.inline(byLabel, labels, "eval." + corpus.name()),
                            Double.NaN,
                            known,
                            java.util.Set.copyOf(settings.tiers()));
            for (EncoderModel m : settings.tiers()) {
                TaskHeads.TierHead h = heads.head(task, m);
                heldOut.get(m)[seed] = accuracy(h.head(), vectors.get(m), y, test);
                crossValidated.get(m)[seed] = h.fit().accuracy().value();
            }
            GraphCompiler compiler =
                    new GraphCompiler(
                            GraphIdentity.current("eval", settings.estimator().profile()),
                            settings.estimator(),
                            QualityProfile.active(),
                            heads);
            ExecutionPlan plan =
                    compiler.compile(
                            new PlanShape(
                                    task, "classify", "json", bucket, 0, settings.floor(), false));
            EncoderModel tier = EncoderModel.byId(plan.node("encode").model());
            picks.merge(tier.id(), 1, Integer::sum);
            chosen[seed] = accuracy(plan.head(), vectors.get(tier), y, test);
        }
        progress.accept(
                String.format(
                        java.util.Locale.ROOT,
                        "%-18s %2d shots: the compiler's tier %.3f on %d held out, picks %s",
                        corpus.name(),
                        k,
                        mean(chosen),
                        held,
                        picks));
        List<TierFigure> tiers = new ArrayList<>();
        for (EncoderModel m : settings.tiers()) {
            tiers.add(new TierFigure(m, figure(heldOut.get(m), held), mean(crossValidated.get(m))));
        }
        return new ShotResult(
                corpus.name(), k, k * labels.size(), held, tiers, figure(chosen, held), picks);
    }

    /** The mean accuracy over seeds, with the Wilson interval of one seed's held-out items. */
    private static Interval figure(double[] accuracies, int heldOut) {
        double mean = mean(accuracies);
        Interval one = Interval.proportion((int) Math.round(mean * heldOut), heldOut);
        return new Interval(mean, one.low(), one.high(), heldOut);
    }

    private static double mean(double[] v) {
        return java.util.Arrays.stream(v).average().orElse(Double.NaN);
    }

    /** The share of {@code test} items whose head's top label is their own. */
    static double accuracy(ClassifierHead head, float[][] vectors, int[] y, List<Integer> test) {
        int right = 0;
        for (int i : test) {
            double[] logits = head.logits(vectors[i]);
            int best = 0;
            for (int l = 1; l < logits.length; l++) {
                if (logits[l] > logits[best]) {
                    best = l;
                }
            }
            right += best == y[i] ? 1 : 0;
        }
        return test.isEmpty() ? Double.NaN : (double) right / test.size();
    }
}
