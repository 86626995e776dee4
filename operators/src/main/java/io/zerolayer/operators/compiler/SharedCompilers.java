package io.zerolayer.operators.compiler;

import io.zerolayer.operators.heads.TaskHeads;
import io.zerolayer.operators.quality.QualityProfile;
import java.util.Map;

/** The compilers of this JVM, one per graph identity, hardware and quality profile in force. */
public final class SharedCompilers {
    private SharedCompilers() {}

    /**
     * The compiler of this JVM for {@code identity} and {@code estimator}'s hardware, with the
     * quality profile in force: one instance per such key, so its plans, compiled once per shape,
     * serve every operator of the TaskManager that compiles for the same hardware (the classifier's
     * estimates and every executor slot's graphs) instead of each compiling them again.
     */
    public static GraphCompiler of(GraphIdentity identity, CostEstimator estimator) {
        return of(identity, estimator, null);
    }

    /**
     * {@link #of(GraphIdentity, CostEstimator)}, for a compiler that classifies the tasks with
     * labelled examples by their {@code heads} (null: zero-shot, as every compiler without it).
     * Compilers with and without heads are kept apart: their plans of a task with examples differ.
     * Of two callers with heads for one identity (the same contracts), the first's fit them.
     */
    public static GraphCompiler of(
            GraphIdentity identity, CostEstimator estimator, TaskHeads heads) {
        QualityProfile quality = QualityProfile.active();
        SharedKey key = new SharedKey(identity, estimator.key(), quality, heads != null);
        GraphCompiler known = SHARED.get(key);
        if (known != null) {
            return known;
        }
        if (SHARED.size() >= SHARED_COMPILERS) {
            SHARED.clear(); // contracts reloaded many times over: start over
        }
        return SHARED.computeIfAbsent(
                key, k -> new GraphCompiler(identity, estimator, quality, heads));
    }

    /** Compilers a JVM keeps for {@link #of}: contract versions × hardware, a handful. */
    static final int SHARED_COMPILERS = 64;

    private record SharedKey(
            GraphIdentity identity, Object estimator, QualityProfile quality, boolean heads) {}

    private static final Map<SharedKey, GraphCompiler> SHARED =
            new java.util.concurrent.ConcurrentHashMap<>();
}
