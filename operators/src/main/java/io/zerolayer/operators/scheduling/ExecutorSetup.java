package io.zerolayer.operators.scheduling;

import io.zerolayer.operators.costs.PriceSheet;
import io.zerolayer.operators.execution.ExecutionSettings;
import io.zerolayer.operators.execution.WarmGraphCache;
import io.zerolayer.operators.warmup.GraphDescriptors;
import io.zerolayer.operators.warmup.PrecompileList;
import java.io.Serializable;

/**
 * What an executor slot is set up with, from the job's configuration: serializable, so it travels
 * with the job graph, and each slot builds its parts from it when it opens.
 *
 * @param contractsYaml the task contracts' text; {@code contractsFile} the file a bare
 *     reload-contracts re-reads, or null for the built-in
 * @param hardwareSetting zerolayer.hardware-profile: a profile id, or auto to detect; a
 *     TaskManager's own config.yaml may set it for its slots
 * @param extraProfilesYaml hardware profiles besides the built-in, or null
 * @param cacheBounds how many compiled graphs, and bytes of them, a slot keeps warm, and how long
 * @param precompile structures each slot compiles when it opens
 * @param graphsTopic where to find graphs compiled before a restart; null for none
 * @param execution micro-batching, time limits, GPU and pruning settings (and test-only faults)
 * @param prices what cost records are billed at
 * @param inferenceThread whether micro-batches run on one inference thread per slot instead of the
 *     Flink task thread, so barriers, control commands and new requests are handled while a batch
 *     encodes (the streaming job; its requests stay in keyed state until their replies are emitted
 *     on the task thread, so a checkpoint taken while a batch runs holds them). Off, batches run on
 *     the task thread (the batch job, where nothing waits on a barrier)
 * @param sliceMillis most estimated time of one encoder run, on either thread (so a request's
 *     answer and bill do not depend on the thread); on the inference thread, the waiting batches
 *     due before a batch run between its runs ({@link
 *     io.zerolayer.operators.execution.SliceBoundary}); 0: runs as the plan cuts them
 * @param crashAfterRequests testing only: the executor throws out of {@code processElement} —
 *     failing the task, so Flink restarts the job from its last checkpoint and replays — after this
 *     many requests in a slot, once per JVM; 0 never
 */
public record ExecutorSetup(
        String contractsYaml,
        String contractsFile,
        String hardwareSetting,
        String extraProfilesYaml,
        int intraOpThreads,
        WarmGraphCache.Bounds cacheBounds,
        PrecompileList precompile,
        GraphDescriptors graphsTopic,
        ExecutionSettings execution,
        PriceSheet prices,
        boolean inferenceThread,
        long sliceMillis,
        int crashAfterRequests)
        implements Serializable {

    public ExecutorSetup {
        if (sliceMillis < 0) {
            throw new IllegalArgumentException(
                    "zerolayer.batch.slice must be 0 (off) or positive, got " + sliceMillis);
        }
    }

    /**
     * This setup with {@code yaml} as its contracts (a SQL model's, with its examples): a bare
     * reload re-reads no file then.
     */
    public ExecutorSetup withContracts(String yaml) {
        return new ExecutorSetup(
                yaml,
                null,
                hardwareSetting,
                extraProfilesYaml,
                intraOpThreads,
                cacheBounds,
                precompile,
                graphsTopic,
                execution,
                prices,
                inferenceThread,
                sliceMillis,
                crashAfterRequests);
    }

    /**
     * A setup for tests and tools: no contracts file, no extra profiles, one ONNX thread, nothing
     * precompiled, no graphs topic, the built-in prices, batches on the task thread and whole, no
     * crash.
     */
    public static ExecutorSetup of(
            String contractsYaml,
            String hardwareSetting,
            WarmGraphCache.Bounds cacheBounds,
            ExecutionSettings execution) {
        return new ExecutorSetup(
                contractsYaml,
                null,
                hardwareSetting,
                null,
                1,
                cacheBounds,
                PrecompileList.NONE,
                null,
                execution,
                PriceSheet.builtIn(),
                false,
                0,
                0);
    }

    public ExecutorSetup withPrecompile(PrecompileList list) {
        return new ExecutorSetup(
                contractsYaml,
                contractsFile,
                hardwareSetting,
                extraProfilesYaml,
                intraOpThreads,
                cacheBounds,
                list,
                graphsTopic,
                execution,
                prices,
                inferenceThread,
                sliceMillis,
                crashAfterRequests);
    }

    public ExecutorSetup withInferenceThread(boolean on) {
        return new ExecutorSetup(
                contractsYaml,
                contractsFile,
                hardwareSetting,
                extraProfilesYaml,
                intraOpThreads,
                cacheBounds,
                precompile,
                graphsTopic,
                execution,
                prices,
                on,
                sliceMillis,
                crashAfterRequests);
    }

    public ExecutorSetup withSlice(long millis) {
        return new ExecutorSetup(
                contractsYaml,
                contractsFile,
                hardwareSetting,
                extraProfilesYaml,
                intraOpThreads,
                cacheBounds,
                precompile,
                graphsTopic,
                execution,
                prices,
                inferenceThread,
                millis,
                crashAfterRequests);
    }
}
