package io.zerolayer.operators.prompt;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PromptReaderTest {

    @Test
    void readsAllTagFormsIntoATree() {
        ParsedPrompt p =
                PromptReader.read(
                        "<task:summarize><output_format:json>\n"
                            + "<document format=\"pdf\" source='upload'><section:abstract>We study"
                            + " X.</section><figure:3/><section:methods>Y was"
                            + " done.</section></document>");
        assertThat(p.problems()).isEmpty();
        TagNode document = p.firstTag("document");
        assertThat(document.attributes())
                .containsEntry("format", "pdf")
                .containsEntry("source", "upload");
        assertThat(document.closed()).isTrue();
        assertThat(p.tagsNamed("section"))
                .extracting(TagNode::value)
                .containsExactly("abstract", "methods");
        assertThat(p.firstTag("figure").value()).isEqualTo("3");
        assertThat(p.firstTag("task").value()).isEqualTo("summarize");
        assertThat(p.firstTag("section").text()).isEqualTo("We study X.");
    }

    @Test
    void unclosedDirectivesAreVoidAndTheirFollowingTextBelongsToTheParent() {
        ParsedPrompt p = PromptReader.read("<document><task:answer> body text</document>");
        TagNode task = p.firstTag("task");
        assertThat(task.children()).isEmpty();
        assertThat(task.closed()).isFalse();
        assertThat(p.firstTag("document").text()).isEqualTo(" body text");
    }

    @Test
    void lessThanThatIsNotATagStaysText() {
        String prompt = "<task:answer>if x < y and a<b then 3 <= 4 <not a tag";
        ParsedPrompt p = PromptReader.read(prompt);
        assertThat(p.tags()).extracting(TagNode::name).containsExactly("task");
        assertThat(p.root().text()).isEqualTo("if x < y and a<b then 3 <= 4 <not a tag");
    }

    @Test
    void textOffsetsIndexIntoThePrompt() {
        String prompt = "<task:embed>\n<section:a>alpha</section> beta";
        ParsedPrompt p = PromptReader.read(prompt);
        TextNode alpha = (TextNode) p.firstTag("section").children().get(0);
        assertThat(prompt.substring(alpha.offset(), alpha.offset() + alpha.text().length()))
                .isEqualTo("alpha");
        assertThat(alpha.line()).isEqualTo(2);
        assertThat(alpha.column()).isEqualTo(12);
    }

    @Test
    void strayCloseTagIsReportedWithItsPosition() {
        ParsedPrompt p = PromptReader.read("<task:embed>text\n  </section>");
        assertThat(p.problems())
                .singleElement()
                .satisfies(
                        problem -> {
                            assertThat(problem.code()).isEqualTo("ZL002");
                            assertThat(problem.line()).isEqualTo(2);
                            assertThat(problem.column()).isEqualTo(3);
                        });
    }

    @Test
    void plainTextLeavesTagsOutWithoutReadingTheTree() {
        String deep =
                "<task:x>"
                        + "<a>".repeat(100_000)
                        + "Pressure held."
                        + "</a>".repeat(100_000)
                        + " x < y";
        assertThat(PromptReader.plainText(deep, 1000)).isEqualTo("Pressure held.  x < y");
        assertThat(PromptReader.plainText("one<b>two</b>three", 5)).isEqualTo("one t");
    }
}
