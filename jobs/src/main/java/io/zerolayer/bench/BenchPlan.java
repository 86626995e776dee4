package io.zerolayer.bench;

import java.util.List;
import java.util.Map;

/**
 * What one benchmark worker process measures: one system at one parallelism. The comparison writes
 * it as JSON for the worker it starts; the worker writes its figures back as JSON.
 *
 * @param system {@code ceiling}, {@code zerolayer}, {@code naive-flink} or {@code runtime-router}
 * @param closedLoop workloads measured at maximum throughput
 * @param openLoop workloads then measured at fixed rates: {@code loads} × {@code openLoopBase}
 * @param openLoopBase per workload, the rate (requests/s) {@code loads} are shares of: the runtime
 *     router's maximum, so every system gets the same offered load; where absent, this system's own
 *     closed-loop maximum
 * @param sizes document sizes (characters) measured one after another, {@code sizeRequests} each
 * @param taskModels for the naive baseline: per workload, the model of each task
 * @param ceilingWorkers for the ceiling: the worker counts to measure it at
 * @param window the most requests in flight of a fixed set of documents
 * @param windows per workload, the most requests in flight of its closed loop
 * @param soakSeconds for a soak: this long at {@code loads[0]} × the mixed workload's maximum
 * @param noisyFlood after the open loops, a tenant flooding at this many times the customer-service
 *     maximum beside one sending at 10 % of it, and the quiet one alone before (zerolayer only); 0
 *     for none
 */
record BenchPlan(
        String system,
        int parallelism,
        long seed,
        List<String> closedLoop,
        List<String> openLoop,
        List<Double> loads,
        Map<String, Double> openLoopBase,
        List<Integer> sizes,
        List<Integer> sizeRequests,
        double warmupSeconds,
        double measureSeconds,
        double openLoopSeconds,
        int window,
        Map<String, Integer> windows,
        Map<String, String> flinkConf,
        String contractsYaml,
        Map<String, Map<String, String>> taskModels,
        List<Integer> ceilingWorkers,
        double soakSeconds,
        double noisyFlood,
        String out) {
    /** This plan, writing its figures to {@code file}. */
    BenchPlan writingTo(String file) {
        return new BenchPlan(
                system,
                parallelism,
                seed,
                closedLoop,
                openLoop,
                loads,
                openLoopBase,
                sizes,
                sizeRequests,
                warmupSeconds,
                measureSeconds,
                openLoopSeconds,
                window,
                windows,
                flinkConf,
                contractsYaml,
                taskModels,
                ceilingWorkers,
                soakSeconds,
                noisyFlood,
                file);
    }
}
