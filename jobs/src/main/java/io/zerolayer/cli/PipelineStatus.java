package io.zerolayer.cli;

import java.util.Locale;

/**
 * The pipeline's readiness and traffic, summed over the executor and classifier slots of one or
 * more Prometheus endpoints ({@code flink_taskmanager_job_task_operator_*} metrics).
 *
 * @param readySlots executor slots that finished opening: sessions loaded, structures precompiled
 * @param executorSlots executor slots reporting, ready or not
 */
record PipelineStatus(
        int readySlots,
        int executorSlots,
        long precompiled,
        long cacheSize,
        long hits,
        long misses,
        long requestsIn,
        long rejected,
        long safeMode,
        long deadLetters) {

    private static final String PREFIX = "flink_taskmanager_job_task_operator_";

    static PipelineStatus parse(String prometheusText) {
        double[] v = new double[9];
        int executors = 0;
        for (String line : prometheusText.split("\n")) {
            if (!line.startsWith(PREFIX)) {
                continue;
            }
            int labels = line.indexOf('{');
            int space = line.lastIndexOf(' ');
            if (space < 0) {
                continue;
            }
            String name = line.substring(PREFIX.length(), labels >= 0 ? labels : space);
            double value;
            try {
                value = Double.parseDouble(line.substring(space + 1).trim());
            } catch (NumberFormatException e) {
                continue;
            }
            if (Double.isNaN(value)) {
                continue;
            }
            switch (name) {
                case "graphs_ready" -> {
                    v[0] += value;
                    executors++;
                }
                case "graphs_precompiled" -> v[1] += value;
                case "execution_graph_cache_size" -> v[2] += value;
                case "execution_graph_cache_hit_total" -> v[3] += value;
                case "execution_graph_cache_miss_total" -> v[4] += value;
                case "requests_in_total" -> v[5] += value;
                case "requests_rejected_total" -> v[6] += value;
                case "requests_safe_mode_total" -> v[7] += value;
                case "requests_dead_lettered_total" -> v[8] += value;
                default -> {}
            }
        }
        return new PipelineStatus(
                (int) v[0],
                executors,
                (long) v[1],
                (long) v[2],
                (long) v[3],
                (long) v[4],
                (long) v[5],
                (long) v[6],
                (long) v[7],
                (long) v[8]);
    }

    PipelineStatus plus(PipelineStatus o) {
        return new PipelineStatus(
                readySlots + o.readySlots,
                executorSlots + o.executorSlots,
                precompiled + o.precompiled,
                cacheSize + o.cacheSize,
                hits + o.hits,
                misses + o.misses,
                requestsIn + o.requestsIn,
                rejected + o.rejected,
                safeMode + o.safeMode,
                deadLetters + o.deadLetters);
    }

    String describe(int expectedSlots) {
        double ratio = hits + misses == 0 ? 0 : (double) hits / (hits + misses);
        return String.format(
                Locale.ROOT,
                "%s: %d of %d executor slot(s) ready, %d structure(s) precompiled%n"
                        + "cache: %d warm graph(s), %d hits, %d misses (hit ratio %.2f)%n"
                        + "requests: %d in, %d rejected, %d in safe mode, %d dead-lettered",
                readySlots >= expectedSlots ? "WARM" : "NOT READY",
                readySlots,
                expectedSlots,
                precompiled,
                cacheSize,
                hits,
                misses,
                ratio,
                requestsIn,
                rejected,
                safeMode,
                deadLetters);
    }
}
