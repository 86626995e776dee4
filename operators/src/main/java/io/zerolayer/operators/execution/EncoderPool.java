package io.zerolayer.operators.execution;

import io.zerolayer.gpu.EncoderModel;
import io.zerolayer.gpu.ExecutionDevice;
import io.zerolayer.gpu.SentenceEncoder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The ONNX sessions of one task slot, one per model and device, opened on first use and shared by
 * every compiled graph in the slot. A slot has the CPU and at most one CUDA device (its share of
 * the TaskManager's GPUs). Closing the pool closes the sessions.
 *
 * <p>A slot whose task ends can {@link #park} its pool instead, and the next task in this JVM that
 * asks for the same settings {@linkplain #reuseOrOpen takes it back} (on a cluster, a task of the
 * same job: the pools live in the job's classes; in one JVM running several jobs from the same
 * classes, as a MiniCluster does, any of them — the sessions are the same models either way): a
 * restart after a failure then finds its sessions open rather than loading every model's weights
 * again, which is most of a restarted slot's start-up. A pool is used by one slot at a time. Where
 * these classes are the job's own (a job jar on a cluster), parked pools are closed by {@link
 * #closeParked}, which the job registers to run when Flink releases its classes on this
 * TaskManager; where they {@linkplain #outliveJobs outlive the job} (on the JVM's class path: a
 * MiniCluster, {@code serve}, the tests), parked pools stay for the next job of the JVM.
 */
public final class EncoderPool implements AutoCloseable {
    /** Parked pools by their settings; any slot with the same settings may take one. */
    private static final Map<List<Object>, Deque<EncoderPool>> PARKED = new HashMap<>();

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

    /**
     * A parked pool with these settings, else a new one (its sessions open on first use).
     *
     * @param cuda the slot's CUDA device, or null
     */
    public static EncoderPool reuseOrOpen(int intraOpThreads, ExecutionDevice cuda) {
        synchronized (PARKED) {
            Deque<EncoderPool> parked = PARKED.get(key(intraOpThreads, cuda));
            EncoderPool pool = parked == null ? null : parked.poll();
            if (pool != null) {
                return pool;
            }
        }
        return new EncoderPool(intraOpThreads, cuda);
    }

    /**
     * Keeps this pool, sessions open, for the next task that asks for one with the same settings.
     * Only a pool no batch is running on may be parked.
     */
    public void park() {
        synchronized (PARKED) {
            PARKED.computeIfAbsent(key(intraOpThreads, cuda), k -> new ArrayDeque<>()).push(this);
        }
    }

    /** Closes every parked pool; pools in use are left alone. Returns how many were closed. */
    public static int closeParked() {
        List<EncoderPool> all = new ArrayList<>();
        synchronized (PARKED) {
            PARKED.values().forEach(all::addAll);
            PARKED.clear();
        }
        all.forEach(EncoderPool::close);
        return all.size();
    }

    /**
     * Whether these classes outlive any one job in this JVM: loaded from the JVM's class path (a
     * MiniCluster, {@code serve}, {@code demo}, a test), not from a job's jar, which Flink loads in
     * a class loader of its own and drops with the job. Then a parked pool cannot leak with a job's
     * classes, and the next job of the JVM takes it back instead of opening every session again.
     */
    public static boolean outliveJobs() {
        ClassLoader mine = EncoderPool.class.getClassLoader();
        for (ClassLoader l = ClassLoader.getSystemClassLoader(); l != null; l = l.getParent()) {
            if (l == mine) {
                return true;
            }
        }
        return false;
    }

    private static List<Object> key(int intraOpThreads, ExecutionDevice cuda) {
        return java.util.Arrays.asList(intraOpThreads, cuda);
    }

    /** Whether this pool was parked and is waiting to be taken; for tests. */
    static boolean isParked(EncoderPool pool) {
        synchronized (PARKED) {
            return PARKED.values().stream().anyMatch(d -> d.contains(pool));
        }
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
