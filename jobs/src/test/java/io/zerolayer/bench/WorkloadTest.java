package io.zerolayer.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zerolayer.operators.contracts.TaskContracts;
import io.zerolayer.operators.structure.ClassifiedPrompt;
import io.zerolayer.operators.structure.StructureClassifier;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WorkloadTest {
    private static final StructureClassifier CLASSIFIER =
            new StructureClassifier(TaskContracts.parse(ComparisonBench.benchContracts()));

    @Test
    void theSameSeedGivesTheSameStreamAndAnotherSeedAnother() {
        for (Workload w : Workload.values()) {
            assertThat(w.take(7, 50)).isEqualTo(w.take(7, 50));
            assertThat(w.take(8, 50)).isNotEqualTo(w.take(7, 50));
        }
    }

    @Test
    void everyGeneratedPromptCompilesUnderTheBenchContracts() {
        for (Workload w : Workload.values()) {
            for (Workload.Request r : w.take(42, 300)) {
                ClassifiedPrompt c = CLASSIFIER.classify(r.prompt());
                assertThat(c.compiles()).as(r.id() + ": " + c.diagnostics()).isTrue();
            }
        }
    }

    @Test
    void oneStructureCarriesAbout99PercentOfCustomerService() {
        Map<String, Integer> bySignature = new HashMap<>();
        List<Workload.Request> requests = Workload.CUSTOMER_SERVICE.take(42, 2000);
        for (Workload.Request r : requests) {
            bySignature.merge(
                    CLASSIFIER.classify(r.prompt()).signature().canonical(), 1, Integer::sum);
        }
        int top = bySignature.values().stream().mapToInt(Integer::intValue).max().orElseThrow();
        assertThat((double) top / requests.size()).isBetween(0.97, 0.999);
        assertThat(bySignature).hasSizeGreaterThan(1);
    }

    @Test
    void contractsRunInStrictModeAndPapersHaveManySections() {
        for (Workload.Request r : Workload.CONTRACT_REVIEW.take(1, 20)) {
            assertThat(r.attributes()).containsEntry("compliance", "strict");
        }
        for (Workload.Request r : Workload.LONG_PAPERS.take(1, 20)) {
            int sections = r.prompt().split("<section:", -1).length - 1;
            assertThat(sections).isBetween(8, 14);
            assertThat(r.prompt().length()).isBetween(8_000, 30_000);
        }
    }

    @Test
    void mixedHoldsEveryKindInRoughlyItsShare() {
        List<Workload.Request> mixed = Workload.MIXED.take(3, 2000);
        long triage = mixed.stream().filter(r -> r.prompt().startsWith("<task:triage>")).count();
        long strict = mixed.stream().filter(r -> !r.attributes().isEmpty()).count();
        long papers = mixed.stream().filter(r -> r.prompt().contains("<paper ")).count();
        assertThat(triage / 2000.0).isBetween(0.64, 0.75);
        assertThat(strict / 2000.0).isBetween(0.12, 0.18);
        assertThat(papers / 2000.0).isBetween(0.03, 0.07);
    }

    @Test
    void documentsOfSizeHaveThatSizeAndCompileEvenAtOneMegabyte() {
        for (int size : new int[] {1024, 102_400, 1 << 20}) {
            Workload.Request r = Workload.documentsOfSize(size, 1, 42).get(0);
            int start = r.prompt().indexOf("<document format=\"text\">") + 24;
            int text = r.prompt().indexOf("</document>") - start;
            assertThat(text).isBetween(size - 2, size);
            assertThat(CLASSIFIER.classify(r.prompt()).compiles()).isTrue();
        }
    }

    @Test
    void anUnknownWorkloadNamesTheKnownOnes() {
        assertThatThrownBy(() -> Workload.byId("chat"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("customer-service, papers, contracts or mixed");
    }
}
