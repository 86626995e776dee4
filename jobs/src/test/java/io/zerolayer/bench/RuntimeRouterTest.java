package io.zerolayer.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zerolayer.gpu.hardware.HardwareFingerprint;
import io.zerolayer.gpu.hardware.HardwareProfiles;
import io.zerolayer.operators.compiler.CostEstimator;
import io.zerolayer.operators.compiler.GraphCompiler;
import io.zerolayer.operators.compiler.GraphIdentity;
import io.zerolayer.operators.contracts.TaskContracts;
import io.zerolayer.operators.structure.ClassifiedPrompt;
import io.zerolayer.operators.structure.StructureClassifier;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The router baseline decides at run time what the compiler decides once per structure; it must
 * decide the same, or the comparison measures a different encoder (a router that counted the whole
 * prompt's tokens picked int8 for triage, where the compiler keeps fp32, and ran a quarter of the
 * work).
 */
class RuntimeRouterTest {
    private static final TaskContracts CONTRACTS =
            TaskContracts.parse(ComparisonBench.benchContracts());

    @Test
    void routesEveryRequestToTheModelOfItsCompiledGraph() {
        HardwareFingerprint hw = HardwareFingerprint.resolve("auto", HardwareProfiles.builtIn());
        CostEstimator estimator = new CostEstimator(hw.profile(), hw.primary(), 1);
        GraphCompiler compiler =
                new GraphCompiler(
                        GraphIdentity.current(CONTRACTS.version(), hw.profile().id()), estimator);
        StructureClassifier classifier = new StructureClassifier(CONTRACTS);
        Map<String, Integer> models = new TreeMap<>();
        try (RuntimeRouter router = new RuntimeRouter(CONTRACTS, estimator, 1)) {
            for (Workload w : Workload.values()) {
                for (Workload.Request r : w.take(7, 40)) {
                    ClassifiedPrompt c = classifier.classify(r.prompt());
                    String compiled = compiler.compile(c).node("encode").model();
                    RuntimeRouter.Route route = router.route(r.prompt());
                    assertThat(route.session().model().id()).as(r.id()).isEqualTo(compiled);
                    assertThat(route.task()).isEqualTo(c.task());
                    assertThat(route.decideNanos()).isPositive();
                    models.merge(c.task() + "→" + compiled, 1, Integer::sum);
                }
            }
            // both encoders are chosen somewhere, so agreement is not agreement on one constant
            assertThat(models.keySet()).anyMatch(k -> k.endsWith("int8"));
            assertThat(models.keySet()).anyMatch(k -> k.endsWith("fp32"));
            assertThatThrownBy(() -> router.route("<task:no-such-task>Hello."))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }
}
