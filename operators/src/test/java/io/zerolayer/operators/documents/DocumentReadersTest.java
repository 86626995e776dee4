package io.zerolayer.operators.documents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class DocumentReadersTest {
    private static Document read(DocumentFormat f, String text) throws Exception {
        return DocumentReaders.read(f, text.getBytes(StandardCharsets.UTF_8), "test");
    }

    @Test
    void plainTextIsOneBodyWithItsParagraphs() throws Exception {
        Document d = read(DocumentFormat.TEXT, "\uFEFFFirst paragraph.\r\n\r\nSecond one.\r\n");
        assertThat(d.sections()).hasSize(1);
        assertThat(d.sections().get(0).name()).isNull();
        assertThat(d.sections().get(0).text()).isEqualTo("First paragraph.\n\nSecond one.");
    }

    @Test
    void markdownHeadingsBecomeSectionsAndTheTopHeadingTheTitle() throws Exception {
        Document d =
                read(
                        DocumentFormat.MARKDOWN,
                        "# The Title\n\nIntro with *emphasis* and [a link](http://x).\n\n"
                                + "## 2.1 Related Work\n\nPrior art.\n\n- one\n- two\n\n"
                                + "## Résumé\n\n```\ncode stays\n```\n");
        assertThat(d.title()).isEqualTo("The Title");
        assertThat(d.sections())
                .extracting(Document.Section::name)
                .containsExactly(null, "related-work", "resume");
        assertThat(d.sections().get(0).text()).isEqualTo("Intro with emphasis and a link.");
        assertThat(d.sections().get(1).heading()).isEqualTo("2.1 Related Work");
        assertThat(d.sections().get(1).text())
                .contains("Prior art.")
                .contains("one")
                .contains("two");
        assertThat(d.sections().get(2).text()).contains("code stays");
    }

    @Test
    void htmlKeepsOnlyVisibleTextWithHeadingsAsSections() throws Exception {
        Document d =
                read(
                        DocumentFormat.HTML,
                        "<html><head><title>Page</title><style>p{}</style></head><body>"
                                + "<nav hidden>menu</nav><script>var x=1;</script>"
                                + "<p>Lead text.</p><h2>Results</h2><p>We found <b>two</b>"
                                + " things.</p><div style=\"display: none\">secret</div>"
                                + "<p>Second<br>line.</p></body></html>");
        assertThat(d.title()).isEqualTo("Page");
        assertThat(d.sections())
                .extracting(Document.Section::name)
                .containsExactly(null, "results");
        String all = d.sections().get(0).text() + " " + d.sections().get(1).text();
        assertThat(all)
                .contains("Lead text.", "We found two things.", "Second\nline.")
                .doesNotContain("menu", "var x", "secret", "p{}");
    }

    @Test
    void unreadableFilesSayWhy() {
        byte[] latin1 = "caf\u00e9".getBytes(StandardCharsets.ISO_8859_1);
        assertThatThrownBy(() -> DocumentReaders.read(DocumentFormat.TEXT, latin1, "a.txt"))
                .isInstanceOf(UnreadableDocumentException.class)
                .hasMessageContaining("not UTF-8");
        assertThatThrownBy(
                        () ->
                                DocumentReaders.read(
                                        DocumentFormat.PDF,
                                        "%PDF-1.4 garbage".getBytes(StandardCharsets.US_ASCII),
                                        "a.pdf"))
                .isInstanceOf(UnreadableDocumentException.class)
                .hasMessageContaining("not a readable PDF");
        assertThatThrownBy(() -> read(DocumentFormat.MARKDOWN, "  \n\n  "))
                .isInstanceOf(UnreadableDocumentException.class)
                .hasMessageContaining("no text");
    }

    @Test
    void promptsNeverGainTagsFromDocumentText() throws Exception {
        Document d = read(DocumentFormat.TEXT, "if a<b and x < y then </section> <figure:2>");
        String prompt = AnalysisTask.builder("summarize").build().promptFor(d, DocumentFormat.TEXT);
        assertThat(prompt)
                .contains("a< b and x < y then < /section> <figure:2>")
                .startsWith("<task:summarize><output_format:json>\n<document format=\"text\">");
    }

    @Test
    void tasksSayWhatTheyAreMissing() {
        assertThatThrownBy(() -> AnalysisTask.builder("classify").build())
                .hasMessageContaining("--labels");
        assertThatThrownBy(() -> AnalysisTask.builder("answer").outputFormat("xml").build())
                .hasMessageContaining("json or text");
        assertThat(AnalysisTask.builder("embed").build().promptForPrompt("<task:answer> x"))
                .isEqualTo("<task:answer> x");
    }
}
