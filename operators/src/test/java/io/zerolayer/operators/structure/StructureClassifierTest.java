package io.zerolayer.operators.structure;

import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.operators.prompt.PromptDiagnostic;
import org.junit.jupiter.api.Test;

class StructureClassifierTest {
    private final StructureClassifier classifier = new StructureClassifier();

    private static final String PAPER =
            "<task:summarize><output_format:json><document format=\"pdf\">"
                    + "<section:abstract>%s</section><section:results>%s</section></document>";

    @Test
    void sameStructureWithDifferentTextHasTheSameSignature() {
        ClassifiedPrompt a =
                classifier.classify(PAPER.formatted("Graphene conducts heat.", "It does so well."));
        ClassifiedPrompt b =
                classifier.classify(
                        PAPER.formatted("Proteins fold quickly.", "Folding was observed."));
        assertThat(a.signature()).isEqualTo(b.signature());
        assertThat(a.signature().canonical()).doesNotContain("Graphene").doesNotContain("heat");
    }

    @Test
    void structuralDifferencesChangeTheSignature() {
        String base = PAPER.formatted("a", "b");
        StructureSignature s = classifier.classify(base).signature();
        assertThat(classifier.classify(base.replace("summarize", "embed")).signature())
                .isNotEqualTo(s);
        assertThat(classifier.classify(base.replace("pdf", "html")).signature()).isNotEqualTo(s);
        assertThat(classifier.classify(base.replace("results", "methods")).signature())
                .isNotEqualTo(s);
        assertThat(classifier.classify(base.replace("<output_format:json>", "")).signature())
                .isNotEqualTo(s);
        assertThat(classifier.classify(PAPER.formatted("a", "b".repeat(5000))).signature())
                .isNotEqualTo(s);
    }

    @Test
    void freeAttributeValuesAndFigureNumbersAreContent() {
        StructureSignature a =
                classifier
                        .classify("<task:embed><doc id=\"17\"><figure:1>x</figure></doc>")
                        .signature();
        StructureSignature b =
                classifier
                        .classify("<task:embed><doc id=\"99\"><figure:2>y</figure></doc>")
                        .signature();
        assertThat(a).isEqualTo(b);
        assertThat(a.canonical()).isEqualTo("task:embed doc{id=*}(figure:#(~0))");
    }

    @Test
    void sizeBucketsDoubleFrom128Chars() {
        assertThat(StructureSignature.sizeBucket(0)).isZero();
        assertThat(StructureSignature.sizeBucket(127)).isZero();
        assertThat(StructureSignature.sizeBucket(128)).isEqualTo(1);
        assertThat(StructureSignature.sizeBucket(255)).isEqualTo(1);
        assertThat(StructureSignature.sizeBucket(256)).isEqualTo(2);
        assertThat(StructureSignature.sizeBucket(4096)).isEqualTo(6);
    }

    @Test
    void missingAndMisspelledTasksAreDiagnosedWithHints() {
        assertThat(classifier.classify("just text").diagnostics())
                .extracting(PromptDiagnostic::code)
                .containsExactly("ZL001");
        ClassifiedPrompt typo = classifier.classify("<task:sumarize> text");
        assertThat(typo.compiles()).isFalse();
        assertThat(typo.diagnostics())
                .singleElement()
                .satisfies(
                        d -> {
                            assertThat(d.code()).isEqualTo("ZL010");
                            assertThat(d.hint()).isEqualTo("did you mean <task:summarize>?");
                            assertThat(d.column()).isEqualTo(1);
                        });
    }

    @Test
    void tasksThatNeedQueriesSayWhatIsMissing() {
        assertThat(classifier.classify("<task:answer> doc").diagnostics())
                .extracting(PromptDiagnostic::code)
                .containsExactly("ZL011");
        assertThat(classifier.classify("<task:classify> doc").diagnostics())
                .extracting(PromptDiagnostic::code)
                .containsExactly("ZL011");
        assertThat(classifier.classify("<task:classify><labels>a, b</labels> doc").compiles())
                .isTrue();
    }

    @Test
    void severalErrorsAreReportedAtOnce() {
        ClassifiedPrompt p = classifier.classify("<task:classify><output_format:yaml></x> doc");
        assertThat(p.diagnostics())
                .extracting(PromptDiagnostic::code)
                .containsExactlyInAnyOrder("ZL002", "ZL023", "ZL011");
    }

    @Test
    void documentContentGroupsTextBySectionAndKeepsQueriesApart() {
        ClassifiedPrompt p =
                classifier.classify(
                        "<task:answer><question>Who"
                                + " pays?</question><contract>Intro.<section:payment>Buyer"
                                + " pays.</section><section:payment>Again.</section></contract>");
        DocumentContent c = DocumentContent.of(p.parsed());
        assertThat(c.question()).isEqualTo("Who pays?");
        assertThat(c.scopes().keySet())
                .containsExactly("body", "section:payment", "section:payment#2");
        assertThat(c.scopes().get("section:payment").get(0).text()).isEqualTo("Buyer pays.");
    }
}
