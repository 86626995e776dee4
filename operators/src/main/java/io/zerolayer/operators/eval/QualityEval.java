package io.zerolayer.operators.eval;

import io.zerolayer.gpu.EncoderModel;
import io.zerolayer.gpu.Pooling;
import io.zerolayer.gpu.SentenceEncoder;
import io.zerolayer.operators.costs.PriceSheet;
import io.zerolayer.operators.execution.PerRequestAnalysis;
import io.zerolayer.operators.quality.Interval;
import io.zerolayer.operators.structure.ClassifiedPrompt;
import io.zerolayer.operators.structure.StructureClassifier;
import io.zerolayer.operators.tasks.TaskInput;
import java.io.IOException;
import java.nio.LongBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Measures how right each encoder tier's answers are on labelled public corpora ({@link
 * EvalCorpora}), asking them as a user would: each item becomes a prompt ({@code <task:classify>}
 * with the corpus's label texts, or {@code <task:answer>} with a FAQ question over its whole page),
 * classified against the task contracts and answered by the graph's own decode path ({@link
 * PerRequestAnalysis}: the same chunking, prefixes, encoder runs, decoders and post-decode steps).
 *
 * <p>Per tier and corpus: zero-shot accuracy, or passage-answer top-1 and MRR (by the best chunk of
 * each section), with 95 % intervals; the agreement of each int8 tier's document embeddings with
 * its family's fp32 (mean cosine); encoder tokens a second; and the encoder's cost per 1 000
 * requests at the price sheet's rates.
 */
public final class QualityEval {
    /**
     * @param tiers the encoders to measure, fp32 before int8 within a family (for agreement)
     * @param intraOpThreads ONNX Runtime threads per session; 0 lets it choose
     * @param limit items per corpus, spread over it (0: all)
     * @param prices what the encoder's work costs
     * @param priceProfile the price sheet's profile for this hardware
     */
    public record Settings(
            List<EncoderModel> tiers,
            int intraOpThreads,
            int limit,
            PriceSheet prices,
            String priceProfile) {}

    /**
     * One figure of one tier on one corpus.
     *
     * @param dataset the corpus
     * @param task the task it is asked as ({@code classify}, {@code answer}, {@code embed})
     * @param metric {@code accuracy}, {@code top1}, {@code mrr} or {@code agreement}
     * @param figure the figure and its interval
     * @param tokensPerSecond encoder tokens a second while answering the corpus
     * @param nanoUsdPer1000 the encoder's cost of 1 000 of the corpus's requests
     */
    public record Score(
            String dataset,
            String task,
            String metric,
            Interval figure,
            double tokensPerSecond,
            double nanoUsdPer1000) {}

    /** The figures of one tier. */
    public record TierResult(EncoderModel model, List<Score> scores) {}

    /**
     * What a run measured.
     *
     * @param tiers each tier's figures
     * @param corpora the corpora read: name → source, items, majority-label share (NaN for FAQs)
     * @param missing the corpora not installed, each with how to install it
     */
    public record Report(
            List<TierResult> tiers, Map<String, CorpusInfo> corpora, List<String> missing) {}

    /** What one corpus is. */
    public record CorpusInfo(String task, String source, int items, double majorityShare) {}

    private final Settings settings;
    private final StructureClassifier classifier;
    private final Consumer<String> progress;

    public QualityEval(
            Settings settings, StructureClassifier classifier, Consumer<String> progress) {
        this.settings = settings;
        this.classifier = classifier;
        this.progress = progress;
    }

    public Report run(EvalCorpora corpora) throws IOException {
        List<ClassificationCorpus> classification = new ArrayList<>();
        for (ClassificationCorpus c : corpora.classification()) {
            classification.add(limited(c));
        }
        FaqCorpus faq = corpora.pythonFaq();
        Map<String, CorpusInfo> info = new LinkedHashMap<>();
        classification.forEach(
                c ->
                        info.put(
                                c.name(),
                                new CorpusInfo(
                                        "classify",
                                        c.source(),
                                        c.items().size(),
                                        c.majorityShare())));
        if (faq != null) {
            faq = limited(faq);
            info.put(
                    faq.name(),
                    new CorpusInfo("answer", faq.source(), faq.questions(), Double.NaN));
        }
        List<TierResult> results = new ArrayList<>();
        // document vectors per tier and corpus item, for int8 against fp32 agreement
        Map<EncoderModel, Map<String, float[]>> documentVectors = new HashMap<>();
        for (EncoderModel model : settings.tiers()) {
            List<Score> scores = new ArrayList<>();
            Map<String, float[]> vectors = new HashMap<>();
            try (SentenceEncoder encoder = SentenceEncoder.open(model, settings.intraOpThreads())) {
                for (ClassificationCorpus c : classification) {
                    scores.add(classify(encoder, c, vectors));
                }
                if (faq != null) {
                    scores.addAll(answer(encoder, faq));
                }
            }
            documentVectors.put(model, vectors);
            EncoderModel reference = fp32Of(model);
            if (reference != null && documentVectors.containsKey(reference)) {
                for (ClassificationCorpus c : classification) {
                    scores.add(agreement(c, vectors, documentVectors.get(reference)));
                }
            }
            results.add(new TierResult(model, scores));
        }
        return new Report(results, info, corpora.missing());
    }

    /** The fp32 tier of {@code model}'s family when {@code model} is not fp32 itself. */
    private EncoderModel fp32Of(EncoderModel model) {
        if (model.precision().equals("fp32")) {
            return null;
        }
        return settings.tiers().stream()
                .filter(m -> m.family().equals(model.family()) && m.precision().equals("fp32"))
                .findFirst()
                .orElse(null);
    }

    private Score classify(
            SentenceEncoder encoder, ClassificationCorpus corpus, Map<String, float[]> vectors) {
        Meter meter = new Meter(encoder.model(), corpus.name(), corpus.items().size());
        int right = 0;
        List<LabelledPrompts.LabelledPrompt> prompts = LabelledPrompts.classification(corpus);
        for (LabelledPrompts.LabelledPrompt p : prompts) {
            PerRequestAnalysis.Analysis a = analyse(p.prompt(), encoder, null, meter);
            if (p.right(a.output())) {
                right++;
            }
            vectors.put(p.id(), documentVector(a.input()));
        }
        return meter.score("classify", "accuracy", Interval.proportion(right, prompts.size()));
    }

    private List<Score> answer(SentenceEncoder encoder, FaqCorpus faq) {
        Meter meter = new Meter(encoder.model(), faq.name(), faq.questions());
        int right = 0;
        List<Double> reciprocalRanks = new ArrayList<>();
        for (FaqCorpus.Page page : faq.pages()) {
            // the page's chunks are encoded once and reused for each of its questions
            Map<LongBuffer, float[]> pageVectors = new HashMap<>();
            for (LabelledPrompts.LabelledPrompt p : LabelledPrompts.questions(faq.name(), page)) {
                PerRequestAnalysis.Analysis a = analyse(p.prompt(), encoder, pageVectors, meter);
                if (p.right(a.output())) {
                    right++;
                }
                reciprocalRanks.add(1.0 / rankOf(p.expected(), a.input()));
            }
        }
        double[] rr = reciprocalRanks.stream().mapToDouble(Double::doubleValue).toArray();
        return List.of(
                meter.score("answer", "top1", Interval.proportion(right, rr.length)),
                meter.score("answer", "mrr", Interval.mean(rr)));
    }

    /** The rank of {@code scope} among the sections, each scored by its best chunk. */
    static int rankOf(String scope, TaskInput input) {
        Map<String, Double> best = new HashMap<>();
        float[] q = input.queryVectors()[0];
        for (int i = 0; i < input.chunks().size(); i++) {
            double s = Pooling.cosine(q, input.chunkVectors()[i]);
            best.merge(input.chunks().get(i).scope(), s, Math::max);
        }
        Double own = best.get(scope);
        if (own == null) {
            return best.size() + 1; // the section has no chunk: ranked after all
        }
        return 1 + (int) best.values().stream().filter(s -> s > own).count();
    }

    private Score agreement(
            ClassificationCorpus corpus, Map<String, float[]> mine, Map<String, float[]> fp32) {
        double[] cosines =
                corpus.items().stream()
                        .map(i -> corpus.name() + "/" + i.id())
                        .filter(k -> mine.containsKey(k) && fp32.containsKey(k))
                        .mapToDouble(k -> Pooling.cosine(mine.get(k), fp32.get(k)))
                        .toArray();
        return new Score(
                corpus.name(),
                "embed",
                "agreement",
                Interval.mean(cosines),
                Double.NaN,
                Double.NaN);
    }

    /** The document's embedding as the embed decoder pools it: its chunk vectors' unit mean. */
    private static float[] documentVector(TaskInput input) {
        float[] sum = new float[input.dimensions()];
        for (float[] v : input.chunkVectors()) {
            for (int k = 0; k < sum.length; k++) {
                sum[k] += v[k];
            }
        }
        Pooling.normalize(sum);
        return sum;
    }

    private PerRequestAnalysis.Analysis analyse(
            String prompt, SentenceEncoder encoder, Map<LongBuffer, float[]> cache, Meter meter) {
        ClassifiedPrompt c = classifier.classify(prompt);
        PerRequestAnalysis.Analysis a =
                PerRequestAnalysis.analyse(
                        c.parsed(),
                        c.contract().decoder(),
                        c.outputFormat(),
                        false,
                        encoder,
                        cache);
        meter.add(a);
        return a;
    }

    private ClassificationCorpus limited(ClassificationCorpus c) {
        return settings.limit() <= 0 || c.items().size() <= settings.limit()
                ? c
                : new ClassificationCorpus(c.name(), c.source(), c.hypotheses(), spread(c.items()));
    }

    private FaqCorpus limited(FaqCorpus faq) {
        if (settings.limit() <= 0 || faq.pages().size() <= settings.limit()) {
            return faq;
        }
        return new FaqCorpus(faq.name(), faq.source(), spread(faq.pages()));
    }

    /** {@code limit} items spread evenly over the list, so every label keeps its share. */
    private <T> List<T> spread(List<T> all) {
        List<T> out = new ArrayList<>();
        for (int i = 0; i < settings.limit(); i++) {
            out.add(all.get((int) ((long) i * all.size() / settings.limit())));
        }
        return out;
    }

    /** The encoder's work and progress over one corpus. */
    private final class Meter {
        private final EncoderModel model;
        private final String corpus;
        private final int total;
        private final long started = System.nanoTime();
        private long lastReport = started;
        private int requests;
        private long tokens;
        private long nanos;
        private long flops;

        Meter(EncoderModel model, String corpus, int total) {
            this.model = model;
            this.corpus = corpus;
            this.total = total;
        }

        void add(PerRequestAnalysis.Analysis a) {
            requests++;
            tokens += a.encodedTokens();
            nanos += a.encodeNanos();
            flops += a.encodeFlops();
            long now = System.nanoTime();
            if (now - lastReport > 10_000_000_000L || requests == total) {
                lastReport = now;
                progress.accept(
                        String.format(
                                java.util.Locale.ROOT,
                                "%-24s %-18s %5d/%d requests, %.0f s",
                                model.id(),
                                corpus,
                                requests,
                                total,
                                (now - started) / 1e9));
            }
        }

        Score score(String task, String metric, Interval figure) {
            PriceSheet.Money bill =
                    settings.prices()
                            .bill(
                                    settings.priceProfile(),
                                    model.precision(),
                                    flops,
                                    null,
                                    null,
                                    nanos);
            return new Score(
                    corpus,
                    task,
                    metric,
                    figure,
                    nanos == 0 ? 0 : tokens / (nanos / 1e9),
                    requests == 0 ? 0 : bill.total() * 1000.0 / requests);
        }
    }
}
