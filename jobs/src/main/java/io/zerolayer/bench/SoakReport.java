package io.zerolayer.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Locale;

/** The soak part of a bench report: zerolayer at a fixed rate for minutes, and its memory. */
final class SoakReport {
    private SoakReport() {}

    /** The resident-memory samples of a system's soak, or null when it ran none. */
    static JsonNode samples(JsonNode system) {
        JsonNode samples = system == null ? null : system.get("soak");
        return samples == null || samples.isEmpty() ? null : samples;
    }

    /** The soak's paragraph, when the zerolayer system ran one. */
    static void append(JsonNode zerolayer, StringBuilder md) {
        JsonNode samples = samples(zerolayer);
        if (samples == null) {
            return;
        }
        double[] growth = growth(samples);
        JsonNode phase = zerolayer.path("soakPhase");
        md.append(
                String.format(
                        Locale.ROOT,
                        "**Soak** (zerolayer, %s at %.1f req/s offered for %.0f s): %d OK, %d"
                                + " lost, p50 %.0f ms, p99 %.0f ms; resident memory %.0f MiB"
                                + " after the first minute, %.0f MiB over the last minute"
                                + " (%+.1f%%), peak %.0f MiB%n%n",
                        phase.path("workload").asText(),
                        phase.path("offeredPerSecond").asDouble(),
                        phase.path("seconds").asDouble(),
                        phase.path("ok").asInt(),
                        phase.path("lost").asInt(),
                        phase.path("latency").path("p50").asDouble(),
                        phase.path("latency").path("p99").asDouble(),
                        growth[0] / (1 << 20),
                        growth[1] / (1 << 20),
                        (growth[1] / growth[0] - 1) * 100,
                        growth[2] / (1 << 20)));
    }

    /** Mean RSS of the second minute, of the last minute, and the peak sample. */
    static double[] growth(JsonNode samples) {
        double last = samples.get(samples.size() - 1).path("seconds").asDouble();
        double firstSum = 0;
        int firstN = 0;
        double lastSum = 0;
        int lastN = 0;
        double peak = 0;
        for (JsonNode s : samples) {
            double t = s.path("seconds").asDouble();
            double rss = s.path("rssBytes").asDouble();
            peak = Math.max(peak, rss);
            if (t >= 60 && t < 120) {
                firstSum += rss;
                firstN++;
            }
            if (t >= last - 60) {
                lastSum += rss;
                lastN++;
            }
        }
        return new double[] {
            firstN == 0 ? samples.get(0).path("rssBytes").asDouble() : firstSum / firstN,
            lastSum / Math.max(1, lastN),
            peak
        };
    }
}
