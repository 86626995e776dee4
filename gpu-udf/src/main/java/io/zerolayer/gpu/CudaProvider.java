package io.zerolayer.gpu;

import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** ONNX Runtime's CUDA execution provider for a session, or why the session runs on the CPU. */
final class CudaProvider {
    private static final Logger LOG = LoggerFactory.getLogger(CudaProvider.class);

    /** Set once per JVM after the first CUDA session that could not be created. */
    private static final java.util.concurrent.atomic.AtomicBoolean CUDA_WARNED =
            new java.util.concurrent.atomic.AtomicBoolean();

    private CudaProvider() {}

    /**
     * Adds the CUDA provider for {@code target} to {@code options}; false (and one WARN per JVM)
     * when this ONNX Runtime cannot run on that device.
     */
    static boolean addTo(OrtSession.SessionOptions options, ExecutionDevice target) {
        if (!SentenceEncoder.cudaProviderAvailable()) {
            warnCuda(
                    target,
                    "this ONNX Runtime has no CUDA provider (build with -Pgpu for"
                            + " onnxruntime_gpu)");
            return false;
        }
        try {
            ai.onnxruntime.providers.OrtCUDAProviderOptions cuda =
                    new ai.onnxruntime.providers.OrtCUDAProviderOptions(target.deviceId());
            if (target.memoryLimitBytes() > 0) {
                cuda.add("gpu_mem_limit", String.valueOf(target.memoryLimitBytes()));
            }
            cuda.add("arena_extend_strategy", target.arenaStrategy().toString());
            options.addCUDA(cuda);
            return true;
        } catch (OrtException | UnsatisfiedLinkError e) {
            warnCuda(target, e.getMessage());
            return false;
        }
    }

    private static void warnCuda(ExecutionDevice target, String why) {
        if (CUDA_WARNED.compareAndSet(false, true)) {
            LOG.warn("Graphs planned for {} run on the CPU: {}", target, why);
        }
    }
}
