package io.zerolayer.operators.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.operators.compiler.CostEstimator;
import io.zerolayer.operators.compiler.GraphCompiler;
import io.zerolayer.operators.compiler.GraphIdentity;
import io.zerolayer.operators.compiler.RequestDecision;
import io.zerolayer.operators.contracts.TaskContracts;
import io.zerolayer.operators.structure.StructureClassifier;
import org.junit.jupiter.api.Test;

/**
 * A structure is compiled once in a TaskManager: the classifier's estimate and every executor slot
 * that compiles for the same hardware share one compiler, and its plans.
 */
class StructureEstimatesTest {
    private static final TaskContracts CONTRACTS = TaskContracts.builtIn();

    @Test
    void compilersOfOneIdentityAndHardwareAreOneInstance() {
        GraphIdentity identity = GraphIdentity.current("v-shared", "cpu-avx2@test");
        assertThat(
                        io.zerolayer.operators.compiler.SharedCompilers.of(
                                identity, CostEstimator.nominal()))
                .isSameAs(
                        io.zerolayer.operators.compiler.SharedCompilers.of(
                                identity, CostEstimator.nominal()));
        assertThat(
                        io.zerolayer.operators.compiler.SharedCompilers.of(
                                identity, CostEstimator.nominal()))
                .isNotSameAs(
                        io.zerolayer.operators.compiler.SharedCompilers.of(
                                GraphIdentity.current("v-other", "cpu-avx2@test"),
                                CostEstimator.nominal()));
    }

    @Test
    void aStructureTheClassifierEstimatedIsNotCompiledAgainByTheSlot() {
        CostEstimator hardware = CostEstimator.nominal();
        RequestDecision decision =
                RequestDecision.of(
                        new StructureClassifier(CONTRACTS)
                                .classify("<task:summarize> The pump failed. It was fixed."),
                        new GraphCompiler(
                                GraphIdentity.current(
                                        CONTRACTS.version(), GraphIdentity.ANY_HARDWARE)));
        new StructureEstimates(CONTRACTS, hardware).of(decision);
        // the compiler a slot of this hardware compiles with (SlotGraphs)
        GraphCompiler slot =
                io.zerolayer.operators.compiler.SharedCompilers.of(
                        GraphIdentity.current(CONTRACTS.version(), hardware.profile()), hardware);
        long compiled = slot.plansCompiled();
        assertThat(compiled).as("plans compiled by the estimate").isPositive();
        slot.compile(decision.structure());
        assertThat(slot.plansCompiled()).as("plans compiled, after the slot's").isEqualTo(compiled);
    }
}
