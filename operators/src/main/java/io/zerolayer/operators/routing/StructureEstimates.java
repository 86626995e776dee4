package io.zerolayer.operators.routing;

import io.zerolayer.operators.compiler.CostEstimator;
import io.zerolayer.operators.compiler.GraphCompiler;
import io.zerolayer.operators.compiler.GraphIdentity;
import io.zerolayer.operators.compiler.RequestDecision;
import io.zerolayer.operators.contracts.TaskContracts;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Each structure's estimate on the hardware the executor compiles for (its plan's choices, its own
 * size), computed once per structure and remembered, least recently used forgotten: what the
 * hot-graph sharder spreads load by, what a tenant's token quota counts, and how a long request is
 * split.
 */
public final class StructureEstimates {
    /** Structures remembered. */
    static final int REMEMBERED = 10_000;

    private final GraphCompiler estimating;
    private final int safeModeMaxChars;
    private final Map<String, GraphCompiler.RequestEstimate> known =
            new LinkedHashMap<>(64, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(
                        Map.Entry<String, GraphCompiler.RequestEstimate> eldest) {
                    return size() > REMEMBERED;
                }
            };

    public StructureEstimates(TaskContracts contracts, CostEstimator estimator) {
        // the compiler the executor slots of this TaskManager compile with, for the same hardware:
        // a structure estimated here is compiled once, for both; a task with examples is estimated
        // as zero-shot (the classifier fits no heads), on the tier the shipped profile chooses
        this.estimating =
                io.zerolayer.operators.compiler.SharedCompilers.of(
                        GraphIdentity.current(contracts.version(), estimator.profile()), estimator);
        this.safeModeMaxChars = contracts.limits().safeModeMaxChars();
    }

    /** The estimate of the decision's structure (the SAFE graph's for a safe-mode request). */
    public GraphCompiler.RequestEstimate of(RequestDecision decision) {
        GraphCompiler.RequestEstimate e = known.get(decision.structureId());
        if (e != null) {
            return e;
        }
        try {
            e =
                    decision.safeMode()
                            ? estimating.estimateSafe(safeModeMaxChars)
                            : estimating.estimate(decision.structure());
        } catch (RuntimeException failed) {
            // routed by its request rate alone; the executor reports the error
            e = new GraphCompiler.RequestEstimate(0, true, 0);
        }
        known.put(decision.structureId(), e);
        return e;
    }
}
