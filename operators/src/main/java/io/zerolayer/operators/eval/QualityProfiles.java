package io.zerolayer.operators.eval;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * The quality profile {@code zerolayer eval} writes ({@code flink-conf/quality-profiles.yaml}): per
 * encoder tier and corpus, each measured figure with its 95 % interval, tokens a second and the
 * encoder's cost per 1 000 requests; the corpora and where they come from; when and on which
 * hardware profile it was measured.
 */
public final class QualityProfiles {
    private QualityProfiles() {}

    /** The profile of {@code report} as YAML, with a header saying how to reproduce it. */
    public static String toYaml(
            QualityEval.Report report, String hardwareProfile, String date, String command) {
        return toYaml(report, hardwareProfile, date, command, Map.of());
    }

    /**
     * As {@link #toYaml(QualityEval.Report, String, String, String)}, naming the version of each
     * corpus package measured ({@code packages}: Debian package → version), so the figures can be
     * tied to the texts they came from.
     */
    public static String toYaml(
            QualityEval.Report report,
            String hardwareProfile,
            String date,
            String command,
            Map<String, String> packages) {
        return toYaml(report, List.of(), hardwareProfile, date, command, packages);
    }

    /**
     * As {@link #toYaml(QualityEval.Report, String, String, String, Map)}, with the few-shot heads'
     * figures ({@code heads}: per corpus and number of shots, every tier's held-out and
     * cross-validated accuracy and the compiler's choice) beside the zero-shot ones.
     */
    public static String toYaml(
            QualityEval.Report report,
            List<FewShotEval.ShotResult> fewShot,
            String hardwareProfile,
            String date,
            String command,
            Map<String, String> packages) {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("version", 1);
        root.put("measured", date);
        root.put("hardware-profile", hardwareProfile);
        if (!packages.isEmpty()) {
            root.put("packages", new LinkedHashMap<>(packages));
        }
        Map<String, Object> corpora = new LinkedHashMap<>();
        report.corpora()
                .forEach(
                        (name, c) -> {
                            Map<String, Object> m = new LinkedHashMap<>();
                            m.put("task", c.task());
                            m.put("source", c.source());
                            m.put("items", c.items());
                            if (!Double.isNaN(c.majorityShare())) {
                                m.put("majority-label-share", round(c.majorityShare()));
                            }
                            corpora.put(name, m);
                        });
        root.put("corpora", corpora);
        Map<String, Object> tiers = new LinkedHashMap<>();
        for (QualityEval.TierResult t : report.tiers()) {
            Map<String, Object> tier = new LinkedHashMap<>();
            tier.put("family", t.model().family());
            tier.put("precision", t.model().precision());
            tier.put("sha256", t.model().sha256());
            Map<String, Object> scores = new LinkedHashMap<>();
            for (QualityEval.Score s : t.scores()) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("task", s.task());
                m.put("value", round(s.figure().value()));
                m.put("ci95", List.of(round(s.figure().low()), round(s.figure().high())));
                m.put("n", s.figure().n());
                if (!Double.isNaN(s.tokensPerSecond())) {
                    m.put("tokens-per-second", Math.round(s.tokensPerSecond()));
                    m.put("encoder-nano-usd-per-1000-requests", Math.round(s.nanoUsdPer1000()));
                }
                scores.put(s.dataset() + "." + s.metric(), m);
            }
            tier.put("scores", scores);
            tiers.put(t.model().id(), tier);
        }
        root.put("tiers", tiers);
        if (!fewShot.isEmpty()) {
            root.put("heads", heads(fewShot));
        }
        DumperOptions options = new DumperOptions();
        options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        options.setWidth(120);
        String header =
                "# Answer quality of each encoder tier on labelled public corpora, measured by\n"
                        + "#   "
                        + command
                        + "\n"
                        + "# value: accuracy (classify), top-1 and MRR (answer: the passage lies in"
                        + " the\n"
                        + "# question's own section), agreement (embed: mean cosine of an int8"
                        + " tier's\n"
                        + "# document vectors with its family's fp32); ci95: the 95 % interval"
                        + " (Wilson for\n"
                        + "# proportions, normal for means). Cost: the encoder's work at the price"
                        + " sheet's\n"
                        + "# rates for hardware-profile. The compiler reads the figures to choose"
                        + " tiers.\n"
                        + (fewShot.isEmpty()
                                ? ""
                                : "# heads: few-shot heads, per corpus and examples per label:"
                                        + " held-out accuracy\n"
                                        + "# (mean over seeds, Wilson interval of one seed's"
                                        + " held-out items) and cross-validated\n"
                                        + "# accuracy of each tier's head, the compiler's"
                                        + " chosen tier's, and its picks.\n");
        return header + new Yaml(options).dump(root);
    }

    /**
     * A quality profile's YAML with only {@code tier}'s figures: compiled with it, every plan runs
     * that tier (the bench's pinned run).
     *
     * @throws IllegalArgumentException when the profile does not measure {@code tier}
     */
    @SuppressWarnings("unchecked")
    public static String onlyTier(String profileYaml, String tier) {
        Map<String, Object> root =
                new Yaml(
                                new org.yaml.snakeyaml.constructor.SafeConstructor(
                                        new org.yaml.snakeyaml.LoaderOptions()))
                        .load(profileYaml);
        Map<String, Object> tiers = (Map<String, Object>) root.get("tiers");
        if (tiers == null || !tiers.containsKey(tier)) {
            throw new IllegalArgumentException("The quality profile does not measure " + tier);
        }
        tiers.keySet().retainAll(List.of(tier));
        return new Yaml().dump(root);
    }

    private static Map<String, Object> heads(List<FewShotEval.ShotResult> fewShot) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (FewShotEval.ShotResult r : fewShot) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("examples", r.examples());
            m.put("held-out", r.heldOut());
            Map<String, Object> tiers = new LinkedHashMap<>();
            for (FewShotEval.TierFigure t : r.tiers()) {
                Map<String, Object> f = new LinkedHashMap<>();
                f.put("held-out-accuracy", round(t.heldOut().value()));
                f.put("ci95", List.of(round(t.heldOut().low()), round(t.heldOut().high())));
                f.put("cross-validated", round(t.crossValidated()));
                tiers.put(t.model().id(), f);
            }
            m.put("tiers", tiers);
            m.put("compiler-accuracy", round(r.compiler().value()));
            m.put("compiler-picks", new LinkedHashMap<>(r.picks()));
            out.put(r.corpus() + ".shots-" + r.shots(), m);
        }
        return out;
    }

    /**
     * The few-shot figures as a table: per corpus, each tier's zero-shot accuracy (from {@code
     * report}) against its head's at each number of shots, and the compiler's choice.
     */
    public static String fewShotTable(
            QualityEval.Report report, List<FewShotEval.ShotResult> fewShot) {
        StringBuilder out = new StringBuilder();
        Map<String, List<FewShotEval.ShotResult>> byCorpus = new LinkedHashMap<>();
        fewShot.forEach(
                r -> byCorpus.computeIfAbsent(r.corpus(), k -> new java.util.ArrayList<>()).add(r));
        byCorpus.forEach(
                (corpus, results) -> {
                    out.append(corpus).append(" · few-shot heads, held-out accuracy");
                    QualityEval.CorpusInfo c = report.corpora().get(corpus);
                    if (c != null && !Double.isNaN(c.majorityShare())) {
                        out.append(
                                String.format(
                                        Locale.ROOT,
                                        "   (majority label %.1f %%)",
                                        100 * c.majorityShare()));
                    }
                    out.append('\n')
                            .append(String.format(Locale.ROOT, "  %-24s %10s", "", "zero-shot"));
                    results.forEach(
                            r ->
                                    out.append(
                                            String.format(
                                                    Locale.ROOT,
                                                    " %22s",
                                                    r.shots() + " shots (cv)")));
                    out.append('\n');
                    for (int t = 0; t < results.get(0).tiers().size(); t++) {
                        io.zerolayer.gpu.EncoderModel model = results.get(0).tiers().get(t).model();
                        out.append(
                                String.format(
                                        Locale.ROOT,
                                        "  %-24s %10s",
                                        model.id(),
                                        zeroShot(report, model, corpus)));
                        for (FewShotEval.ShotResult r : results) {
                            FewShotEval.TierFigure f = r.tiers().get(t);
                            out.append(
                                    String.format(
                                            Locale.ROOT,
                                            " %5.1f [%4.1f,%5.1f] (%4.1f)",
                                            100 * f.heldOut().value(),
                                            100 * f.heldOut().low(),
                                            100 * f.heldOut().high(),
                                            100 * f.crossValidated()));
                        }
                        out.append('\n');
                    }
                    out.append(String.format(Locale.ROOT, "  %-24s %10s", "compiler's choice", ""));
                    results.forEach(
                            r ->
                                    out.append(
                                            String.format(
                                                    Locale.ROOT,
                                                    " %5.1f %16s",
                                                    100 * r.compiler().value(),
                                                    "")));
                    out.append('\n');
                    results.forEach(
                            r ->
                                    out.append(
                                            String.format(
                                                    Locale.ROOT,
                                                    "    %d shots: %d examples, %d held out;"
                                                            + " picks %s%n",
                                                    r.shots(),
                                                    r.examples(),
                                                    r.heldOut(),
                                                    r.picks())));
                });
        return out.toString();
    }

    private static String zeroShot(
            QualityEval.Report report, io.zerolayer.gpu.EncoderModel m, String corpus) {
        return report.tiers().stream()
                .filter(t -> t.model().equals(m))
                .flatMap(t -> t.scores().stream())
                .filter(s -> s.dataset().equals(corpus) && s.metric().equals("accuracy"))
                .findFirst()
                .map(s -> String.format(Locale.ROOT, "%.1f", 100 * s.figure().value()))
                .orElse("–");
    }

    private static double round(double v) {
        return Double.isNaN(v) ? v : Math.round(v * 10_000d) / 10_000d;
    }

    /** The report as a table, one block per corpus and metric, a row per tier. */
    public static String table(QualityEval.Report report) {
        StringBuilder out = new StringBuilder();
        Map<String, List<String>> blocks = new LinkedHashMap<>();
        for (QualityEval.TierResult t : report.tiers()) {
            for (QualityEval.Score s : t.scores()) {
                String key = s.dataset() + " · " + s.task() + " " + s.metric();
                blocks.computeIfAbsent(key, k -> new java.util.ArrayList<>())
                        .add(
                                String.format(
                                        Locale.ROOT,
                                        "  %-24s %6.1f %%  [%5.1f, %5.1f]  n=%-5d %s",
                                        t.model().id(),
                                        100 * s.figure().value(),
                                        100 * s.figure().low(),
                                        100 * s.figure().high(),
                                        s.figure().n(),
                                        Double.isNaN(s.tokensPerSecond())
                                                ? ""
                                                : String.format(
                                                        Locale.ROOT,
                                                        "%,8.0f tok/s  $%.6f / 1000 req",
                                                        s.tokensPerSecond(),
                                                        s.nanoUsdPer1000() / 1e9)));
            }
        }
        blocks.forEach(
                (key, rows) -> {
                    String dataset = key.substring(0, key.indexOf(" · "));
                    QualityEval.CorpusInfo c = report.corpora().get(dataset);
                    out.append(key);
                    if (c != null && !Double.isNaN(c.majorityShare()) && key.contains("accuracy")) {
                        out.append(
                                String.format(
                                        Locale.ROOT,
                                        "   (majority label %.1f %%)",
                                        100 * c.majorityShare()));
                    }
                    out.append('\n');
                    rows.forEach(r -> out.append(r).append('\n'));
                });
        return out.toString();
    }
}
