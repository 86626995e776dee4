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
    void theLabelledStreamSendsEveryCorpusPromptOncePerPassEachWithItsAnswer() {
        // the fixtures (surefire's zerolayer.bench.corpora-root): 4 + 6 + 22 texts, 3 questions
        List<Workload.Request> pass = Workload.LABELLED.take(7, 35);
        assertThat(pass).allSatisfy(r -> assertThat(r.expected()).isNotNull());
        assertThat(pass.stream().map(r -> r.expected().id()).distinct()).hasSize(35);
        assertThat(pass).extracting(Workload.Request::kind).contains("classify", "answer");
        Workload.Request question =
                pass.stream().filter(r -> r.kind().equals("answer")).findFirst().orElseThrow();
        assertThat(
                        question.expected()
                                .right("{\"scope\":\"" + question.expected().expected() + "\"}"))
                .isTrue();
        assertThat(question.expected().right("{\"scope\":\"section:q99\"}")).isFalse();
        assertThat(question.expected().right("not json")).isFalse();
        // the next pass is shuffled anew
        List<Workload.Request> next = Workload.LABELLED.take(7, 70).subList(35, 70);
        assertThat(next.stream().map(r -> r.expected().id()).distinct()).hasSize(35);
        assertThat(next.stream().map(r -> r.expected().id()).toList())
                .isNotEqualTo(pass.stream().map(r -> r.expected().id()).toList());
        assertThat(Workload.labelledMissing()).isEmpty();
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
    void oneStructureCarriesAbout99PercentOfCustomerServiceAndOfUnique() {
        for (Workload w : List.of(Workload.CUSTOMER_SERVICE, Workload.UNIQUE)) {
            Map<String, Integer> bySignature = new HashMap<>();
            List<Workload.Request> requests = w.take(42, 2000);
            for (Workload.Request r : requests) {
                bySignature.merge(
                        CLASSIFIER.classify(r.prompt()).signature().canonical(), 1, Integer::sum);
            }
            int top = bySignature.values().stream().mapToInt(Integer::intValue).max().orElseThrow();
            assertThat((double) top / requests.size()).as(w.id()).isBetween(0.97, 0.999);
            assertThat(bySignature).hasSizeGreaterThan(1);
        }
    }

    /**
     * Sentences of a prompt's text, split where the chunker would split them (the triage labels,
     * the same in every ticket, left out).
     */
    private static List<String> sentences(String prompt) {
        return java.util.Arrays.stream(
                        prompt.replaceAll("<[^>]*>", "\n").split("(?<=[.?!])\\s+|\n"))
                .map(String::strip)
                .filter(t -> t.contains("(ref "))
                .toList();
    }

    @Test
    void theUniqueWorkloadAndThePapersNeverRepeatASentence() {
        for (Workload w : List.of(Workload.UNIQUE, Workload.LONG_PAPERS)) {
            List<String> all =
                    w.take(5, 200).stream().flatMap(r -> sentences(r.prompt()).stream()).toList();
            assertThat(all).as(w.id()).hasSizeGreaterThan(500).doesNotHaveDuplicates();
        }
    }

    @Test
    void aDocumentOfSizeRepeatsNoSentence() {
        String doc = Workload.documentsOfSize(102_400, 1, 42).get(0).prompt();
        assertThat(sentences(doc)).hasSizeGreaterThan(1000).doesNotHaveDuplicates();
    }

    @Test
    void customerServiceRepeatsItsFaqsButNeverAQuestion() {
        List<Workload.Request> tickets =
                Workload.CUSTOMER_SERVICE.take(5, 400).stream()
                        .filter(r -> r.prompt().startsWith("<task:answer><output_format:json>"))
                        .toList();
        java.util.Set<String> faqs = new java.util.HashSet<>();
        List<String> questions = new java.util.ArrayList<>();
        for (Workload.Request r : tickets) {
            String p = r.prompt();
            faqs.add(p.substring(p.indexOf("<document"), p.indexOf("</document>")));
            questions.add(p.substring(p.indexOf("<question>"), p.indexOf("</question>")));
        }
        assertThat(faqs).hasSize(Workload.FAQS);
        assertThat(questions).doesNotHaveDuplicates();
        // the FAQs depend on the seed alone: the mixed stream carries the same ones
        assertThat(
                        Workload.MIXED.take(5, 200).stream()
                                .map(Workload.Request::prompt)
                                .filter(p -> p.contains(" FAQ\">"))
                                .map(
                                        p ->
                                                p.substring(
                                                        p.indexOf("<document"),
                                                        p.indexOf("</document>"))))
                .isNotEmpty()
                .allSatisfy(f -> assertThat(faqs).contains(f));
    }

    @Test
    void contractsShareTheirStandardSectionsAndNoOtherText() {
        Map<String, java.util.Set<String>> bySection = new HashMap<>();
        for (Workload.Request r : Workload.CONTRACT_REVIEW.take(5, 60)) {
            java.util.regex.Matcher m =
                    java.util.regex.Pattern.compile("<section:([a-z]+)>([^<]*)</section>")
                            .matcher(r.prompt());
            while (m.find()) {
                bySection
                        .computeIfAbsent(m.group(1), k -> new java.util.HashSet<>())
                        .add(m.group(2));
            }
        }
        for (String standard : List.of("termination", "liability", "confidentiality")) {
            assertThat(bySection.get(standard)).as(standard).hasSize(1);
        }
        assertThat(bySection.get("definitions")).hasSizeGreaterThan(50);
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
        long triage = mixed.stream().filter(r -> r.prompt().contains(" FAQ\">")).count();
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
                .hasMessageContaining(
                        "customer-service, unique, papers, contracts, mixed or labelled");
    }
}
