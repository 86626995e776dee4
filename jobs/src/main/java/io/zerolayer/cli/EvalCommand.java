package io.zerolayer.cli;

import io.zerolayer.gpu.EncoderModel;
import io.zerolayer.gpu.hardware.HardwareFingerprint;
import io.zerolayer.gpu.hardware.HardwareProfiles;
import io.zerolayer.jobs.HardwareOptions;
import io.zerolayer.jobs.JobFunctions;
import io.zerolayer.operators.compiler.CostEstimator;
import io.zerolayer.operators.eval.EvalCorpora;
import io.zerolayer.operators.eval.FewShotEval;
import io.zerolayer.operators.eval.QualityEval;
import io.zerolayer.operators.eval.QualityProfiles;
import io.zerolayer.operators.quality.QualityFloor;
import io.zerolayer.operators.structure.StructureClassifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.flink.configuration.Configuration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code zerolayer eval}: how right each encoder tier's answers are on labelled public corpora, and
 * what they cost; writes the quality profile the compiler chooses tiers from.
 */
@Command(
        name = "eval",
        mixinStandardHelpOptions = true,
        description = {
            "Measure each encoder tier's answers on labelled public corpora (Reuters-21578,"
                    + " fortunes, the Python FAQ): accuracy, top-1 and MRR with 95%% intervals,"
                    + " int8-vs-fp32 agreement, tokens/s and cost per 1000 requests. Writes a"
                    + " quality profile.",
            "Corpora: " + EvalCorpora.APT_GET
        })
final class EvalCommand implements Callable<Integer> {
    @Mixin PipelineSettings settings = new PipelineSettings();

    @Option(
            names = "--root",
            defaultValue = "/",
            description =
                    "Where the corpora's Debian packages are installed (a folder laid out like /)."
                            + " Default: ${DEFAULT-VALUE}.")
    Path root;

    @Option(
            names = "--tiers",
            split = ",",
            description = "Encoder ids to measure. Default: every tier of the model catalog.")
    List<String> tiers;

    @Option(
            names = "--limit",
            defaultValue = "0",
            description =
                    "Items per corpus (FAQ pages for the FAQ), spread over it; 0 for all."
                            + " Default: ${DEFAULT-VALUE}.")
    int limit;

    @Option(
            names = "--threads",
            defaultValue = "0",
            description =
                    "ONNX Runtime intra-op threads; 0 lets it choose. Default: ${DEFAULT-VALUE}.")
    int threads;

    @Option(
            names = "--shots",
            split = ",",
            description =
                    "Also measure few-shot heads: for each number, that many items per label of"
                            + " each classification corpus become a task's examples (the rest are"
                            + " held out), and the compiler fits, cross-validates and chooses a"
                            + " tier's head, e.g. 8,16,32. Uses every item of a corpus, whatever"
                            + " --limit says.")
    List<Integer> shots;

    @Option(
            names = "--seeds",
            defaultValue = "5",
            description =
                    "Splits per number of shots, each with its own seed. Default:"
                            + " ${DEFAULT-VALUE}.")
    int seeds;

    @Option(
            names = "--out",
            defaultValue = "flink-conf/quality-profiles.local.yaml",
            description = "Quality profile to write. Default: ${DEFAULT-VALUE}.")
    Path out;

    /**
     * The installed version of each corpus package, as dpkg knows it; a package dpkg does not know
     * (or a machine without dpkg) is left out.
     */
    static java.util.Map<String, String> packageVersions() {
        java.util.Map<String, String> out = new java.util.LinkedHashMap<>();
        for (String pkg : EvalCorpora.PACKAGES) {
            try {
                Process p = new ProcessBuilder("dpkg-query", "-W", "-f=${Version}", pkg).start();
                String version = new String(p.getInputStream().readAllBytes()).strip();
                if (p.waitFor() == 0 && !version.isEmpty()) {
                    out.put(pkg, version);
                }
            } catch (java.io.IOException e) {
                return out; // no dpkg here
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return out;
            }
        }
        return out;
    }

    @Override
    public Integer call() throws Exception {
        Configuration conf = settings.load();
        List<EncoderModel> models = new ArrayList<>();
        if (tiers == null || tiers.isEmpty()) {
            models.addAll(EncoderModel.values());
        } else {
            tiers.forEach(id -> models.add(EncoderModel.byId(id.strip())));
        }
        // families in catalog order, fp32 first within each: int8's agreement is measured
        // against it
        List<String> families =
                EncoderModel.values().stream().map(EncoderModel::family).distinct().toList();
        models.sort(
                java.util.Comparator.<EncoderModel>comparingInt(m -> families.indexOf(m.family()))
                        .thenComparing(m -> m.precision().equals("fp32") ? 0 : 1));
        HardwareFingerprint hardware =
                HardwareFingerprint.resolve(
                        conf.get(HardwareOptions.HARDWARE_PROFILE), HardwareProfiles.builtIn());
        String profile = hardware.profile().id();
        EvalCorpora corpora = new EvalCorpora(root);
        QualityEval eval =
                new QualityEval(
                        new QualityEval.Settings(
                                models, threads, limit, JobFunctions.prices(conf), profile),
                        new StructureClassifier(JobFunctions.contracts(conf)),
                        line -> System.err.println(line));
        System.err.printf(
                "Measuring %d tiers on %s (hardware profile %s)%s%n",
                models.size(), root, profile, limit > 0 ? ", " + limit + " items per corpus" : "");
        QualityEval.Report report = eval.run(corpora);
        List<FewShotEval.ShotResult> fewShot = List.of();
        if (shots != null && !shots.isEmpty()) {
            if (seeds < 1 || shots.stream().anyMatch(k -> k < 2)) {
                System.err.println("--shots takes numbers of 2 or more, --seeds 1 or more");
                return 2;
            }
            fewShot =
                    new FewShotEval(
                                    new FewShotEval.Settings(
                                            models,
                                            shots,
                                            seeds,
                                            QualityFloor.BALANCED,
                                            new CostEstimator(
                                                    hardware.profile(),
                                                    hardware.primary(),
                                                    threads),
                                            threads),
                                    line -> System.err.println(line))
                            .run(corpora.classification());
        }
        report.missing().forEach(m -> System.err.println("missing: " + m));
        if (report.corpora().isEmpty()) {
            System.err.println("No corpus found under " + root + ": " + EvalCorpora.APT_GET);
            return 2;
        }
        System.out.print(QualityProfiles.table(report));
        if (!fewShot.isEmpty()) {
            System.out.println();
            System.out.print(QualityProfiles.fewShotTable(report, fewShot));
        }
        String command =
                "zerolayer eval"
                        + (root.equals(Path.of("/")) ? "" : " --root " + root)
                        + (limit > 0 ? " --limit " + limit : "")
                        + (tiers != null ? " --tiers " + String.join(",", tiers) : "")
                        + (fewShot.isEmpty()
                                ? ""
                                : " --shots "
                                        + String.join(
                                                ",", shots.stream().map(String::valueOf).toList())
                                        + " --seeds "
                                        + seeds);
        if (out.getParent() != null) {
            Files.createDirectories(out.getParent());
        }
        Files.writeString(
                out,
                QualityProfiles.toYaml(
                        report,
                        fewShot,
                        profile,
                        LocalDate.now(ZoneOffset.UTC).toString(),
                        command,
                        root.equals(Path.of("/")) ? packageVersions() : java.util.Map.of()));
        System.err.println("Wrote " + out);
        return report.missing().isEmpty() ? 0 : 3;
    }
}
