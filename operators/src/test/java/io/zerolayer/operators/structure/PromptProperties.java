package io.zerolayer.operators.structure;

import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.operators.contracts.TaskContracts;
import io.zerolayer.operators.prompt.PromptDiagnostic;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/** Property-based tests of the reader, classifier and checker on arbitrary and mutated prompts. */
class PromptProperties {
    private static final StructureClassifier CLASSIFIER =
            new StructureClassifier(TaskContracts.builtIn());

    private static final List<String> FRAGMENTS =
            List.of(
                    "<task:summarize>",
                    "<task:answer>",
                    "<output_format:json>",
                    "<document format=\"text\">",
                    "</document>",
                    "<section:abstract>",
                    "<section:methods>",
                    "</section>",
                    "<question>",
                    "</question>",
                    "<labels>",
                    "</labels>",
                    "<figure:3/>",
                    "<note>",
                    "</note>",
                    "<",
                    ">",
                    "</",
                    "/>",
                    "\"",
                    "'",
                    "=",
                    ":",
                    " ",
                    "\n",
                    "a < b",
                    "x<y",
                    "<<",
                    "<blink>",
                    "<task:",
                    "<document format=",
                    "é",
                    "\uFFFD",
                    "\u0000",
                    "text. ",
                    "More text! ");

    @Provide
    Arbitrary<String> mutatedPrompts() {
        return Arbitraries.oneOf(
                Arbitraries.of(FRAGMENTS).list().ofMaxSize(60).map(l -> String.join("", l)),
                Arbitraries.strings().ofMaxLength(300),
                Arbitraries.strings().withChars("<>/:=\"' abcdeftask").ofMaxLength(300));
    }

    @Property(tries = 2000)
    void neverThrowsAndAlwaysDecides(@ForAll("mutatedPrompts") String prompt) {
        ClassifiedPrompt p = CLASSIFIER.classify(prompt);
        // exactly one of: compiles, abnormal (safe mode or reject by policy), or rejected
        assertThat(p.compiles() && p.abnormal()).isFalse();
        if (p.compiles()) {
            assertThat(p.signature()).isNotNull();
            assertThat(p.contract()).isNotNull();
        } else {
            assertThat(p.diagnostics()).anyMatch(PromptDiagnostic::isError);
        }
        p.diagnostics()
                .forEach(
                        d -> {
                            assertThat(d.code()).matches("ZL\\d{3}");
                            assertThat(d.line()).isPositive();
                            assertThat(d.column()).isPositive();
                        });
    }

    /** A well-formed prompt skeleton whose text slots are filled from outside. */
    private static String paper(List<String> texts, String format, String attrs) {
        return "<task:summarize"
                + attrs
                + "><output_format:"
                + format
                + ">\n<document format=\"text\" title=\""
                + texts.get(0).replace('>', ' ')
                + "\"><section:abstract>"
                + texts.get(1)
                + "</section><section:results>"
                + texts.get(2)
                + "<figure:"
                + Math.abs(texts.get(3).hashCode() % 9)
                + ">"
                + texts.get(3)
                + "</figure></section></document>";
    }

    @Provide
    Arbitrary<List<String>> texts() {
        // text without '<' (it could start a tag) and of a length inside one size bucket (< 128);
        // attribute values cannot hold '>' either, so paper() blanks it in the title
        return Arbitraries.strings()
                .withCharRange('a', 'z')
                .withChars(' ', '.', ',', '!', 'é', '>')
                .ofMinLength(1)
                .ofMaxLength(120)
                .map(t -> "t" + t) // blank text is no text: structure
                .list()
                .ofSize(4);
    }

    @Property(tries = 300)
    void signatureIgnoresTextContent(
            @ForAll("texts") List<String> a, @ForAll("texts") List<String> b) {
        StructureSignature sa = CLASSIFIER.classify(paper(a, "json", "")).signature();
        StructureSignature sb = CLASSIFIER.classify(paper(b, "json", "")).signature();
        assertThat(sa).isEqualTo(sb);
    }

    @Property(tries = 200)
    void signatureIgnoresAttributeOrderAndWhitespaceInTags(
            @ForAll("texts") List<String> t, @ForAll @IntRange(min = 1, max = 4) int spaces) {
        String pad = " ".repeat(spaces);
        String base =
                "<task:summarize><note>"
                        + t.get(0)
                        + "</note><document format=\"text\" title=\"x\">"
                        + t.get(1)
                        + "</document>";
        String reordered =
                "<task:summarize"
                        + pad
                        + "><note"
                        + pad
                        + ">"
                        + t.get(0)
                        + "</note"
                        + pad
                        + ">"
                        + "<document"
                        + pad
                        + "title='y'"
                        + pad
                        + "format = \"text\""
                        + pad
                        + ">"
                        + t.get(1)
                        + "</document>";
        assertThat(CLASSIFIER.classify(reordered).signature())
                .isEqualTo(CLASSIFIER.classify(base).signature());
    }

    @Provide
    Arbitrary<String[]> structuralEdits() {
        return Combinators.combine(
                        Arbitraries.of("json", "text"), Arbitraries.of("", " sentences=\"2\""))
                .as((f, a) -> new String[] {f, a});
    }

    @Property(tries = 200)
    void signatureChangesWhenStructureChanges(
            @ForAll("texts") List<String> t, @ForAll("structuralEdits") String[] edit) {
        StructureSignature base = CLASSIFIER.classify(paper(t, "json", "")).signature();
        StructureSignature edited = CLASSIFIER.classify(paper(t, edit[0], edit[1])).signature();
        boolean same = edit[0].equals("json") && edit[1].isEmpty();
        assertThat(edited.equals(base)).isEqualTo(same);
        String longer =
                paper(
                        List.of(t.get(0), t.get(1), t.get(2) + "z".repeat(200), t.get(3)),
                        "json",
                        "");
        assertThat(CLASSIFIER.classify(longer).signature()).isNotEqualTo(base);
        String moreSections =
                paper(t, "json", "")
                        .replace("</document>", "<section:notes>n</section></document>");
        assertThat(CLASSIFIER.classify(moreSections).signature()).isNotEqualTo(base);
    }
}
