package io.zerolayer.operators.compiler;

import io.zerolayer.gpu.EncoderModel;
import io.zerolayer.operators.quality.QualityFloor;
import io.zerolayer.operators.quality.QualityProfile;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;

/**
 * The encoder tier of a plan: among the catalog's encoders this device can run, the cheapest (by
 * the cost model's estimate for the structure) whose measured quality for the task meets the floor
 * ({@link QualityFloor}, against the best measured tier); at compliance level 3 a quantised tier
 * only where the profile shows it loses nothing against its family's fp32. Estimates within {@value
 * #TIE_MICROS} µs of each other count as a tie, which the better tier wins.
 *
 * @param chosen the tier the plan runs
 * @param reason why, in a line
 * @param candidates every tier considered, with its quality, estimate and verdict
 */
public record TierChoice(EncoderModel chosen, String reason, List<Candidate> candidates) {

    /** Estimates closer than this are a tie: not worth any quality. */
    static final double TIE_MICROS = 1_000;

    /**
     * One tier considered.
     *
     * @param model the tier
     * @param quality its measured quality for the task; NaN where not measured
     * @param micros its estimated encode time for one request of the structure
     * @param verdict {@code chosen}, or why it lost or was excluded
     */
    public record Candidate(EncoderModel model, double quality, double micros, String verdict) {
        /** How the plan's descriptor lists it. */
        public String describe() {
            return String.format(
                    Locale.ROOT,
                    "%s quality=%s est=%.1fms: %s",
                    model.id(),
                    Double.isNaN(quality)
                            ? "unmeasured"
                            : String.format(Locale.ROOT, "%.3f", quality),
                    micros / 1e3,
                    verdict);
        }
    }

    /**
     * @param decoder the task's decoder, for the reason
     * @param quality each tier's measured quality for the task
     * @param floor how good the answers must be
     * @param exact compliance level 3: quantised tiers only where they lose nothing
     * @param onGpu whether the plan runs on CUDA (no dynamically quantised tiers there)
     * @param estimate a tier's estimated encode time, µs, for one request of the structure
     */
    static TierChoice choose(
            List<EncoderModel> catalog,
            QualityProfile profile,
            String decoder,
            QualityFloor floor,
            boolean exact,
            boolean onGpu,
            java.util.function.ToDoubleFunction<EncoderModel> estimate) {
        return choose(
                catalog, TierQuality.of(profile, decoder), decoder, floor, exact, onGpu, estimate);
    }

    /** The choice by {@code quality}'s figures. */
    static TierChoice choose(
            List<EncoderModel> catalog,
            TierQuality quality,
            String decoder,
            QualityFloor floor,
            boolean exact,
            boolean onGpu,
            java.util.function.ToDoubleFunction<EncoderModel> estimate) {
        List<Candidate> all = new ArrayList<>();
        double best = Double.NEGATIVE_INFINITY;
        for (EncoderModel m : catalog) {
            String excluded = null;
            boolean runs = !(onGpu && m.precision().equals("int8"));
            OptionalDouble q =
                    runs || quality.cheap() ? quality.measured().apply(m) : OptionalDouble.empty();
            if (q.isEmpty() && runs) {
                excluded =
                        "excluded: not measured for this task ("
                                + quality.unmeasured()
                                + " "
                                + m.id()
                                + ")";
            } else if (!runs) {
                excluded =
                        "excluded: dynamically quantised, and ONNX Runtime's CUDA provider has no"
                                + " DynamicQuantizeLinear kernel";
            }
            double measured = q.orElse(Double.NaN);
            all.add(new Candidate(m, measured, estimate.applyAsDouble(m), excluded));
            if (excluded == null) {
                best = Math.max(best, measured);
            }
        }
        if (best == Double.NEGATIVE_INFINITY) {
            return null; // nothing measured runs here: the caller keeps its own rule
        }
        double threshold = best - floor.allowedLoss() - 1e-9;
        List<Candidate> judged = new ArrayList<>();
        for (Candidate c : all) {
            String verdict = c.verdict();
            if (verdict == null && c.quality() < threshold) {
                verdict =
                        String.format(
                                Locale.ROOT,
                                "lost: below the %s floor (%.3f: the best, %.3f, less %s)",
                                floor,
                                Math.max(0, threshold),
                                best,
                                floor == QualityFloor.BEST ? "nothing" : "one point");
            }
            if (verdict == null && exact && c.model().precision().equals("int8")) {
                double fp32 = fp32Quality(all, c.model());
                if (Double.isNaN(fp32) || c.quality() < fp32) {
                    verdict =
                            String.format(
                                    Locale.ROOT,
                                    "excluded: quantised at compliance level 3, and the profile"
                                            + " shows a loss (%.3f < fp32 %s)",
                                    c.quality(),
                                    Double.isNaN(fp32)
                                            ? "unmeasured"
                                            : String.format(Locale.ROOT, "%.3f", fp32));
                }
            }
            judged.add(new Candidate(c.model(), c.quality(), c.micros(), verdict));
        }
        List<Candidate> eligible = judged.stream().filter(c -> c.verdict() == null).toList();
        double cheapest = eligible.stream().mapToDouble(Candidate::micros).min().orElseThrow();
        Candidate winner =
                eligible.stream()
                        .filter(c -> c.micros() <= cheapest + TIE_MICROS)
                        .max(Comparator.comparingDouble(Candidate::quality))
                        .orElseThrow();
        List<Candidate> out = new ArrayList<>();
        for (Candidate c : judged) {
            String verdict = c.verdict();
            if (c == winner) {
                verdict = "chosen";
            } else if (verdict == null) {
                verdict =
                        c.micros() <= cheapest + TIE_MICROS
                                ? "lost: as cheap, but not better"
                                : String.format(
                                        Locale.ROOT,
                                        "lost: %.1f ms dearer",
                                        (c.micros() - winner.micros()) / 1e3);
            }
            out.add(new Candidate(c.model(), c.quality(), c.micros(), verdict));
        }
        String reason =
                String.format(
                        Locale.ROOT,
                        "%s: the cheapest tier meeting the %s floor for %s (quality %.3f, best"
                                + " %.3f; %s)%s",
                        winner.model().id(),
                        floor,
                        decoder,
                        winner.quality(),
                        best,
                        quality.source(),
                        exact ? ", compliance level 3" : "");
        return new TierChoice(winner.model(), reason, out);
    }

    private static double fp32Quality(List<Candidate> all, EncoderModel quantised) {
        return all.stream()
                .filter(
                        c ->
                                c.model().family().equals(quantised.family())
                                        && c.model().precision().equals("fp32"))
                .mapToDouble(Candidate::quality)
                .findFirst()
                .orElse(Double.NaN);
    }

    /** The candidates as the plan's descriptor lists them, one per line. */
    public String describeCandidates() {
        return String.join("\n", candidates.stream().map(Candidate::describe).toList());
    }
}
