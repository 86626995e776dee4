package io.zerolayer.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Where a request's CPU goes in zerolayer's closed loops: each thread group's CPU milliseconds a
 * request answered ({@link ThreadCpu}), and the job's own work besides inference — everything but
 * the inference threads and the bench's client — which bounds how close the job comes to the
 * ceiling, where only the encoder runs.
 */
final class CpuReport {
    private CpuReport() {}

    /** The job's own CPU besides inference a request of a closed-loop phase, ms; -1 if unknown. */
    static double besidesInference(JsonNode phase) {
        JsonNode groups = phase.path("cpuMillisPerRequestByThreads");
        if (groups.isEmpty()) {
            return -1;
        }
        return phase.path("cpuSecondsPerRequest").asDouble() * 1000
                - groups.path(ThreadCpu.INFERENCE).asDouble()
                - groups.path(ThreadCpu.CLIENT).asDouble();
    }

    /** The table, rows by thread group, a column per closed-loop workload. */
    static void append(List<JsonNode> closedLoops, StringBuilder md) {
        List<JsonNode> phases = new ArrayList<>();
        for (JsonNode p : closedLoops) {
            if (!p.path("cpuMillisPerRequestByThreads").isEmpty()) {
                phases.add(p);
            }
        }
        if (phases.isEmpty()) {
            return;
        }
        Set<String> groups = new LinkedHashSet<>();
        phases.forEach(
                p ->
                        p.path("cpuMillisPerRequestByThreads")
                                .fieldNames()
                                .forEachRemaining(groups::add));
        md.append(
                "**Where a request's CPU goes** (zerolayer, closed loop; CPU ms a request answered,"
                        + " per thread from the JVM and /proc over the measured phase; the job"
                        + " besides inference is everything but the inference threads and the"
                        + " bench's client)\n\n| threads |");
        phases.forEach(p -> md.append(' ').append(p.path("workload").asText()).append(" |"));
        md.append("\n|---|");
        phases.forEach(p -> md.append("--:|"));
        md.append("\n| **job besides inference** |");
        phases.forEach(
                p -> md.append(String.format(Locale.ROOT, " **%.2f** |", besidesInference(p))));
        md.append('\n');
        for (String g : groups) {
            md.append("| ").append(g).append(" |");
            phases.forEach(
                    p ->
                            md.append(
                                    String.format(
                                            Locale.ROOT,
                                            " %.2f |",
                                            p.path("cpuMillisPerRequestByThreads")
                                                    .path(g)
                                                    .asDouble())));
            md.append('\n');
        }
        md.append('\n');
    }
}
