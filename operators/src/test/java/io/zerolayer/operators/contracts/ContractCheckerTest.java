package io.zerolayer.operators.contracts;

import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.operators.prompt.PromptDiagnostic;
import io.zerolayer.operators.structure.ClassifiedPrompt;
import io.zerolayer.operators.structure.StructureClassifier;
import java.util.List;
import org.junit.jupiter.api.Test;

class ContractCheckerTest {
    private final StructureClassifier classifier = new StructureClassifier(TaskContracts.builtIn());

    private List<PromptDiagnostic> diagnostics(String prompt) {
        return classifier.classify(prompt).diagnostics();
    }

    private PromptDiagnostic only(String prompt) {
        List<PromptDiagnostic> d = diagnostics(prompt);
        assertThat(d).hasSize(1);
        return d.get(0);
    }

    @Test
    void aMissingAttributeNamesItsAllowedValues() {
        PromptDiagnostic d = only("<task:summarize>\n<document>text</document>");
        assertThat(d.code()).isEqualTo("ZL022");
        assertThat(d.line()).isEqualTo(2);
        assertThat(d.column()).isEqualTo(1);
        assertThat(d.hint()).contains("format").contains("[text, markdown, html, pdf-text]");
    }

    @Test
    void aTaskWithNoDocumentTextIsATypeErrorNotAnExecutionFailure() {
        PromptDiagnostic none = only("<task:summarize><output_format:json>");
        assertThat(none.code()).isEqualTo("ZL012");
        assertThat(none.hint()).contains("<task:summarize> The pump failed twice.");
        // the task's own inputs are not document text
        assertThat(only("<task:answer><question>When is rent due?</question>  ").code())
                .isEqualTo("ZL012");
        assertThat(only("<task:summarize><document format=\"text\"> </document>").code())
                .isEqualTo("ZL012");
        assertThat(diagnostics("<task:answer><question>When?</question> Rent is due monthly."))
                .isEmpty();
    }

    @Test
    void nearMissNamesGetADidYouMean() {
        assertThat(only("<task:summarize><documnet format=\"text\">x</documnet>").hint())
                .isEqualTo("did you mean <document>?");
        assertThat(only("<task:summarize><document format=\"htlm\">x</document>").hint())
                .isEqualTo("did you mean 'html'?");
        assertThat(
                        only("<task:summarize><document format=\"text\" titel=\"x\">y</document>")
                                .hint())
                .isEqualTo("did you mean title=?");
    }

    @Test
    void typedValuesAreChecked() {
        assertThat(only("<task:summarize sentences=\"three\"> text").code()).isEqualTo("ZL024");
        assertThat(only("<task:summarize sentences=\"99\"> text").message()).contains("1..50");
        assertThat(only("<task:embed><figure:x>caption</figure>").code()).isEqualTo("ZL024");
        assertThat(only("<task:embed><note:x>y</note>").code()).isEqualTo("ZL028");
    }

    @Test
    void structureRulesAreChecked() {
        assertThat(only("<task:answer><question>Why <section:a>x</section>?</question> doc").code())
                .isEqualTo("ZL026");
        assertThat(only("<task:summarize><document format=\"text\">never closed").code())
                .isEqualTo("ZL004");
        PromptDiagnostic notForTask =
                only("<task:triage><labels>a</labels><ticket>t</ticket><paper>p</paper>");
        assertThat(notForTask.code()).isEqualTo("ZL021");
        assertThat(only("<task:embed>" + "x".repeat(50_001)).code()).isEqualTo("ZL027");
        assertThat(only("<task:embed><note>a</note><output_format:text><task:summarize>").code())
                .isEqualTo("ZL003");
        assertThat(
                        only("<task:triage><output_format:text><labels>a</labels><ticket>t</ticket>")
                                .code())
                .isEqualTo("ZL013");
    }

    @Test
    void everyProblemIsReportedAtOnceWithItsPosition() {
        ClassifiedPrompt p =
                classifier.classify(
                        "<task:answer>\n"
                                + "<documnet>\n"
                                + "<document format=\"yaml\">x</document>\n"
                                + "</labels>");
        assertThat(p.diagnostics())
                .extracting(PromptDiagnostic::code)
                .containsExactly("ZL002", "ZL020", "ZL023", "ZL011");
        assertThat(p.diagnostics()).extracting(PromptDiagnostic::line).containsExactly(4, 2, 3, 1);
        assertThat(p.abnormal())
                .isFalse(); // a missing question is a contract failure, not abnormal structure
    }

    @Test
    void onlyAbnormalStructureMayBeDegraded() {
        assertThat(classifier.classify("<task:embed><blink>x</blink>").abnormal()).isTrue();
        assertThat(classifier.classify("<task:embed></note> x").abnormal()).isTrue();
        assertThat(classifier.classify("<task:embdd> x").abnormal()).isFalse();
        assertThat(classifier.classify("<task:embed> x").abnormal()).isFalse();
    }

    @Test
    void limitsStopReadingAndNeverRecurse() {
        String deep = "<task:embed>" + "<note>".repeat(100_000) + "x" + "</note>".repeat(100_000);
        ClassifiedPrompt p = classifier.classify(deep);
        assertThat(p.diagnostics()).extracting(PromptDiagnostic::code).containsExactly("ZL040");
        assertThat(p.abnormal()).isTrue();
        assertThat(p.signature()).isNull();

        ClassifiedPrompt many = classifier.classify("<task:embed>" + "<figure:1/>".repeat(20_000));
        assertThat(many.diagnostics()).extracting(PromptDiagnostic::code).containsExactly("ZL041");

        TaskContracts small =
                TaskContracts.parse(
                        TaskContracts.builtIn()
                                .source()
                                .replace("max-prompt-bytes: 33554432", "max-prompt-bytes: 1000")
                                .replace("max-attribute-length: 4096", "max-attribute-length: 10"));
        StructureClassifier limited = new StructureClassifier(small);
        assertThat(limited.classify("<task:embed>" + "é".repeat(600)).diagnostics())
                .extracting(PromptDiagnostic::code)
                .containsExactly("ZL030");
        assertThat(
                        limited.classify(
                                        "<task:embed><ticket id=\""
                                                + "1".repeat(11)
                                                + "\">x</ticket>")
                                .diagnostics())
                .extracting(PromptDiagnostic::code)
                .containsExactly("ZL031");
    }

    @Test
    void aLongRunOfLessThanSignsIsOneTextTokenAndAbnormalWithoutATask() {
        ClassifiedPrompt p = classifier.classify("<".repeat(5_000_000));
        assertThat(p.diagnostics()).extracting(PromptDiagnostic::code).containsExactly("ZL001");
        assertThat(p.parsed().root().children()).hasSize(1);
    }
}
