package io.zerolayer.operators.flink;

import io.zerolayer.gpu.hardware.HardwareFingerprint;
import io.zerolayer.operators.contracts.TaskContracts;
import io.zerolayer.operators.door.TenantsInForce;
import io.zerolayer.operators.execution.BatchRunner;
import io.zerolayer.operators.execution.EncoderPool;
import io.zerolayer.operators.execution.ExecutionSettings;
import io.zerolayer.operators.execution.SlotGraphs;
import io.zerolayer.operators.replies.ReplyAssembler;
import io.zerolayer.operators.scheduling.BatchAnswers;
import io.zerolayer.operators.scheduling.ExecutorSetup;
import io.zerolayer.operators.scheduling.MicroBatchPolicy;
import io.zerolayer.operators.scheduling.SlotBatches;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The parts of an executor slot, built when its task opens: its hardware, sessions and warm graphs,
 * its micro-batch policy, its metrics, and what binds, runs and answers its batches.
 */
record ExecutorSlot(
        SlotGraphs graphs, MicroBatchPolicy policy, ExecutorMetrics metrics, SlotBatches batches) {
    private static final Logger LOG = LoggerFactory.getLogger(ExecutorSlot.class);

    /**
     * @param tenants the tenants whose registry names their compliance levels, or null
     */
    static ExecutorSlot open(
            ExecutorSetup setup,
            RuntimeContext context,
            TaskContracts initialContracts,
            io.zerolayer.operators.execution.EmbeddingCache.Settings embeddingCache,
            TenantsInForce tenants) {
        ExecutionSettings execution = setup.execution();
        HardwareFingerprint hardware =
                TaskManagerHardware.resolve(
                        TaskManagerHardware.configuration(context),
                        setup.hardwareSetting(),
                        setup.extraProfilesYaml());
        int slot = context.getTaskInfo().getIndexOfThisSubtask();
        // a restarted task takes back the sessions an earlier task of this job left in this JVM;
        // they are closed when Flink releases the job's classes here, unless the classes (and so
        // the sessions) outlive the job, when the JVM's next job takes them back too
        if (!EncoderPool.outliveJobs()) {
            context.registerUserCodeClassLoaderReleaseHookIfAbsent(
                    "zerolayer-parked-onnx-sessions", EncoderPool::closeParked);
        }
        SlotGraphs graphs =
                new SlotGraphs(
                        hardware,
                        setup.intraOpThreads(),
                        gpus -> {
                            var cuda =
                                    io.zerolayer.gpu.ExecutionDevice.cuda(
                                            execution.gpu().deviceFor(slot, gpus),
                                            execution.gpu().memoryLimitBytes(),
                                            execution.gpu().arenaStrategy());
                            LOG.info("Slot {} runs CUDA plans on {}", slot, cuda);
                            return cuda;
                        },
                        setup.prices(),
                        setup.cacheBounds(),
                        initialContracts);
        graphs.useEmbeddingCache(
                io.zerolayer.operators.execution.EmbeddingCache.forTaskManager(embeddingCache));
        // a registered tenant's compliance level is the registry's, read as it is reloaded
        MicroBatchPolicy policy =
                new MicroBatchPolicy(
                                execution,
                                tenant ->
                                        tenants == null
                                                ? null
                                                : tenants.current().compliance(tenant))
                        .withEmbeddingCache(embeddingCache);
        BatchRunner runner =
                new BatchRunner(
                        execution.mainPathTimeoutMillis(),
                        new BatchRunner.Faults(
                                execution.failMainEveryNthBatch(), execution.failFallback()));
        io.zerolayer.gpu.hardware.MemoryHeadroom headroom =
                execution.injectedFreeRatio() >= 0
                        ? io.zerolayer.gpu.hardware.MemoryHeadroom.fixed(
                                execution.injectedFreeRatio())
                        : graphs.cuda() != null
                                ? io.zerolayer.gpu.hardware.MemoryHeadroom.cuda(
                                        graphs.cuda().deviceId())
                                : io.zerolayer.gpu.hardware.MemoryHeadroom.cpu();
        ExecutorMetrics metrics =
                new ExecutorMetrics(context.getMetricGroup(), () -> graphs.size(), headroom);
        if (graphs.embeddingCache() != null) {
            metrics.embeddingCache(graphs.embeddingCache());
        }
        ReplyAssembler replies =
                new ReplyAssembler(
                        graphs.estimator().profile().id(),
                        headroom::describe,
                        execution.pruneBelowFreeRatio());
        BatchAnswers answers = new BatchAnswers(replies, metrics, graphs::hardwareReport);
        SlotBatches batches =
                new SlotBatches(
                        graphs,
                        policy,
                        runner,
                        headroom,
                        execution.pruneBelowFreeRatio(),
                        metrics,
                        replies,
                        answers);
        return new ExecutorSlot(graphs, policy, metrics, batches);
    }
}
