package io.zerolayer.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Locale;

/**
 * The report's table of answers on the labelled stream: how right each system was, and at what
 * cost.
 */
final class LabelledReport {
    private LabelledReport() {}

    /** Each system's answers on the labelled stream: right, and at what speed and CPU. */
    static void append(BenchReport r, StringBuilder md) {
        String w = Workload.LABELLED.id();
        List<String[]> rows = new java.util.ArrayList<>();
        for (String system : BenchReport.SYSTEMS) {
            JsonNode p = r.phase(system, r.parallelism, w, "closed", 0);
            if (p != null) {
                rows.add(labelledRow(system, p));
            }
        }
        JsonNode pinned = MixedTrafficTargets.pinned(r);
        if (pinned != null) {
            rows.add(labelledRow("zerolayer, every plan " + ComparisonBench.PINNED_TIER, pinned));
        }
        if (rows.isEmpty()) {
            return;
        }
        md.append(
                "**Answers on the labelled stream** (closed loop; Reuters-21578 topics, fortunes"
                        + " and Python FAQ questions, docs/quality.md; right when the reply's"
                        + " label or passage is the corpus's; 95 % Wilson interval)\n\n");
        md.append("| system | req/s | CPU s/req | accuracy | 95 % interval | graded |\n");
        md.append("|---|--:|--:|--:|--:|--:|\n");
        rows.forEach(row -> md.append("| ").append(String.join(" | ", row)).append(" |\n"));
        md.append('\n');
    }

    private static String[] labelledRow(String system, JsonNode p) {
        io.zerolayer.operators.quality.Interval a = MixedTrafficTargets.accuracy(p);
        return new String[] {
            system,
            String.format(Locale.ROOT, "%.1f", BenchReport.rps(p)),
            String.format(Locale.ROOT, "%.4f", p.path("cpuSecondsPerRequest").asDouble()),
            String.format(Locale.ROOT, "%.1f %%", 100 * a.value()),
            String.format(Locale.ROOT, "%.1f–%.1f %%", 100 * a.low(), 100 * a.high()),
            String.valueOf(a.n())
        };
    }
}
