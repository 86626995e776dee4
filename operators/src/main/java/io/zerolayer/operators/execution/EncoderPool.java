package io.zerolayer.operators.execution;

import io.zerolayer.gpu.EncoderModel;
import io.zerolayer.gpu.ExecutionDevice;
import io.zerolayer.gpu.SentenceEncoder;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The ONNX sessions of one task slot, one per model and device, opened on first use and shared by
 * every compiled graph in the slot. A slot has the CPU and at most one CUDA device (its share of
 * the TaskManager's GPUs). Closing the pool closes the sessions.
 */
public final class EncoderPool implements AutoCloseable {
    private final int intraOpThreads;
    private final ExecutionDevice cuda;
    private final Map<String, SentenceEncoder> sessions = new LinkedHashMap<>();

    public EncoderPool(int intraOpThreads) {
        this(intraOpThreads, null);
    }

    /**
     * @param cuda the slot's CUDA device for graphs that planned CUDA; null where there is none
     */
    public EncoderPool(int intraOpThreads, ExecutionDevice cuda) {
        this.intraOpThreads = intraOpThreads;
        this.cuda = cuda;
    }

    /** The model's CPU session. */
    public SentenceEncoder get(EncoderModel model) {
        return get(model, "cpu");
    }

    /**
     * The model's session on a plan's device ({@code cpu} or {@code cuda}). A slot without a CUDA
     * device, or whose ONNX Runtime cannot use it, serves {@code cuda} plans from a CPU session
     * ({@link SentenceEncoder#device()} tells).
     */
    public synchronized SentenceEncoder get(EncoderModel model, String planDevice) {
        ExecutionDevice target =
                planDevice.equals("cuda") && cuda != null ? cuda : ExecutionDevice.CPU;
        return sessions.computeIfAbsent(
                model.id() + "@" + target,
                k -> SentenceEncoder.open(model, intraOpThreads, target));
    }

    private io.zerolayer.gpu.CublasSimilarity cublas;
    private boolean cublasTried;

    /**
     * cuBLAS on the slot's CUDA device for plans that put similarities there; null (with one WARN)
     * where the slot has no CUDA device or cuBLAS cannot load: those plans use the CPU loops.
     */
    public synchronized io.zerolayer.gpu.CublasSimilarity similarity() {
        if (!cublasTried) {
            cublasTried = true;
            cublas =
                    cuda == null
                            ? null
                            : io.zerolayer.gpu.CublasSimilarity.tryCreate(cuda.deviceId());
            if (cublas == null) {
                org.slf4j.LoggerFactory.getLogger(EncoderPool.class)
                        .warn(
                                "Similarities planned for cuBLAS run on the CPU: no usable CUDA"
                                        + " device");
            }
        }
        return cublas;
    }

    public synchronized int openSessions() {
        return sessions.size();
    }

    @Override
    public synchronized void close() {
        sessions.values().forEach(SentenceEncoder::close);
        sessions.clear();
        if (cublas != null) {
            cublas.close();
            cublas = null;
        }
    }
}
