package io.zerolayer.operators.structure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A long request's content cut into parts for several slots. */
class ContentPartsTest {
    private static final StructureClassifier CLASSIFIER = new StructureClassifier();

    private static String paper(int sentences) {
        StringBuilder intro = new StringBuilder();
        StringBuilder methods = new StringBuilder();
        for (int i = 0; i < sentences; i++) {
            (i % 3 == 0 ? intro : methods)
                    .append("Sentence ")
                    .append(i)
                    .append(" reports how the freight index moved that week. ");
        }
        return "<task:classify><output_format:json><labels>freight, weather</labels><paper>"
                + "<section:intro>"
                + intro
                + "</section><section:methods>"
                + methods
                + "</section></paper>";
    }

    /** The text of every run of {@code content}, in reading order. */
    private static List<String> texts(DocumentContent content) {
        List<String> texts = new ArrayList<>();
        content.scopes().values().forEach(list -> list.forEach(r -> texts.add(r.text())));
        return texts;
    }

    @Test
    void partsHoldAboutEqualTextCutAtSentenceEndsAsSpansOfThePrompt() {
        String prompt = paper(120);
        DocumentContent whole = DocumentContent.of(CLASSIFIER.classify(prompt).parsed());
        List<DocumentContent> parts = ContentParts.split(whole, 3);
        assertThat(parts).hasSize(3);
        long total = ContentParts.chars(whole);
        assertThat(parts.stream().mapToLong(ContentParts::chars).sum()).isEqualTo(total);
        for (DocumentContent part : parts) {
            assertThat((double) ContentParts.chars(part))
                    .isBetween(total / 3.0 * 0.8, total / 3.0 * 1.2);
            assertThat(part.labels()).isEqualTo(whole.labels());
            part.scopes()
                    .values()
                    .forEach(
                            list ->
                                    list.forEach(
                                            r -> {
                                                // a span of the prompt, where the executor reads it
                                                assertThat(
                                                                prompt.substring(
                                                                        r.offset(),
                                                                        r.offset()
                                                                                + r.text()
                                                                                        .length()))
                                                        .isEqualTo(r.text());
                                                // cut after a sentence, never in one
                                                assertThat(r.text().strip()).endsWith(".");
                                            }));
        }
        // the parts, read in order, are the whole text, scope by scope
        assertThat(String.join("", parts.stream().flatMap(p -> texts(p).stream()).toList()))
                .isEqualTo(String.join("", texts(whole)));
        assertThat(parts.get(0).scopes().keySet()).containsExactly("section:intro");
    }

    @Test
    void oneTextThatCannotFillTwoPartsAndOnePartAreTheContentItself() {
        DocumentContent tiny =
                DocumentContent.of(
                        CLASSIFIER
                                .classify(
                                        "<task:classify><output_format:json><labels>a,"
                                                + " b</labels><ticket>Hi.</ticket>")
                                .parsed());
        assertThat(ContentParts.split(tiny, 1)).containsExactly(tiny);
        assertThat(ContentParts.split(tiny, 4)).hasSizeLessThanOrEqualTo(4);
        assertThatThrownBy(() -> ContentParts.split(tiny, 0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aCutFallsWhereTheChunkerEndsASentenceSoEachPartHoldsTheWholesSentences() {
        // the chunker's sentence keeps its trailing space; the next part starts the next sentence
        assertThat(ContentParts.breakBefore("One two. Three four. Five", 0, 12)).isEqualTo(9);
        assertThat(ContentParts.breakBefore("Note 12. Entry 13 says. Entry 14", 0, 30))
                .isEqualTo(24);
    }

    @Test
    void aRunWithoutSentenceEndsIsCutAtASpaceAndNeverInsideASurrogatePair() {
        assertThat(ContentParts.breakBefore("alpha beta gamma delta", 0, 14)).isEqualTo(11);
        assertThat(ContentParts.breakBefore("one. two three", 0, 12)).isEqualTo(9);
        // a lower-case word after a full stop is no sentence start, to the chunker either
        assertThat(ContentParts.breakBefore("one two. three four", 0, 12)).isEqualTo(9);
        String emoji = "ab\uD83D\uDE00cd";
        assertThat(ContentParts.breakBefore(emoji, 0, 3)).isEqualTo(2);
    }
}
