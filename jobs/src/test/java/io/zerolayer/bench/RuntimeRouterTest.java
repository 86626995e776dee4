package io.zerolayer.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zerolayer.gpu.EncoderModel;
import io.zerolayer.gpu.hardware.HardwareFingerprint;
import io.zerolayer.gpu.hardware.HardwareProfiles;
import io.zerolayer.operators.compiler.CostEstimator;
import io.zerolayer.operators.compiler.GraphCompiler;
import io.zerolayer.operators.contracts.TaskContracts;
import io.zerolayer.operators.structure.ClassifiedPrompt;
import io.zerolayer.operators.structure.StructureClassifier;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The router baseline routes among the compiler's tiers as a runtime router does: light model for
 * short requests, heavy for long ones, fp32 where a vector or a passage is returned.
 */
class RuntimeRouterTest {
    private static final TaskContracts CONTRACTS =
            TaskContracts.parse(ComparisonBench.benchContracts());

    @Test
    void routesBySizeToTheLightOrHeavyFamilyAndByDecoderToItsPrecision() {
        HardwareFingerprint hw = HardwareFingerprint.resolve("auto", HardwareProfiles.builtIn());
        CostEstimator estimator = new CostEstimator(hw.profile(), hw.primary(), 1);
        StructureClassifier classifier = new StructureClassifier(CONTRACTS);
        Map<String, Integer> routes = new TreeMap<>();
        try (RuntimeRouter router = new RuntimeRouter(CONTRACTS, estimator, 1)) {
            for (Workload w : Workload.values()) {
                for (Workload.Request r : w.take(7, 40)) {
                    ClassifiedPrompt c = classifier.classify(r.prompt());
                    double tokens = GraphCompiler.workload(c).documentTokens();
                    String decoder = c.contract().decoder();
                    EncoderModel m = router.route(r.prompt()).session().model();
                    assertThat(m.family())
                            .as(r.id())
                            .isEqualTo(
                                    tokens <= RuntimeRouter.LIGHT_MAX_TOKENS
                                            ? "minilm-l6-v2"
                                            : "bge-small-en-v1.5");
                    if (decoder.equals("embed") || decoder.equals("answer")) {
                        assertThat(m.precision()).as(r.id()).isEqualTo("fp32");
                    }
                    routes.merge(m.id(), 1, Integer::sum);
                }
            }
            // the streams reach both families and both precisions
            assertThat(routes.keySet())
                    .anyMatch(k -> k.startsWith("minilm"))
                    .anyMatch(k -> k.startsWith("bge"))
                    .anyMatch(k -> k.endsWith("int8"))
                    .anyMatch(k -> k.endsWith("fp32"));
            assertThat(router.route(Workload.UNIQUE.take(7, 1).get(0).prompt()).decideNanos())
                    .isPositive();
            assertThatThrownBy(() -> router.route("<task:no-such-task>Hello."))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }
}
