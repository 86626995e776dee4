package io.zerolayer.operators.compiler;

import io.zerolayer.gpu.EncoderModel;
import io.zerolayer.operators.heads.TaskHeads;
import io.zerolayer.operators.quality.QualityProfile;
import java.util.OptionalDouble;
import java.util.function.Function;

/**
 * What a tier's answers to one task measure, which {@link TierChoice} chooses by: the shipped
 * quality profile's figure for the task's decoder, or — for a task with labelled examples — the
 * cross-validated accuracy of the head fit on that tier ({@link TaskHeads}).
 *
 * @param measured a tier's quality; empty where it is not measured
 * @param source where the figures come from, for the plan's reasons
 * @param unmeasured what to do about a tier that is not measured
 * @param cheap whether asking costs nothing (a profile's figure), so even a tier excluded for other
 *     reasons shows it; a head is only fit for a tier that may be chosen
 */
record TierQuality(
        Function<EncoderModel, OptionalDouble> measured,
        String source,
        String unmeasured,
        boolean cheap) {

    /** The profile's figures for {@code decoder}. */
    static TierQuality of(QualityProfile profile, String decoder) {
        return new TierQuality(
                m -> profile.quality(m.id(), m.sha256(), decoder),
                profile.source().equals("built-in") ? "shipped quality profile" : profile.source(),
                "zerolayer eval --tiers",
                true);
    }

    /** The cross-validated accuracy of {@code task}'s head on each tier, fit when first asked. */
    static TierQuality of(TaskHeads heads, String task) {
        return new TierQuality(
                m ->
                        heads.fits(m)
                                ? OptionalDouble.of(heads.head(task, m).fit().accuracy().value())
                                : OptionalDouble.empty(),
                "cross-validated heads on " + heads.examples(task).examples().size() + " examples",
                "heads are not fit on",
                false);
    }
}
