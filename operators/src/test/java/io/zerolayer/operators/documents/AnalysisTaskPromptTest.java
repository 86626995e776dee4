package io.zerolayer.operators.documents;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A document given as text is read as {@code zerolayer analyze} reads a file of its format. */
class AnalysisTaskPromptTest {
    private static final AnalysisTask SUMMARY =
            AnalysisTask.builder("summarize").buildForContracts();

    @Test
    void textIsReadAsAFileOfItsFormatWouldBe() throws Exception {
        String text = "  First line.\r\nSecond <line>.\r\n\r\n";
        assertThat(SUMMARY.promptForText(text, DocumentFormat.TEXT))
                .isEqualTo(
                        SUMMARY.promptFor(
                                DocumentReaders.read(
                                        DocumentFormat.TEXT,
                                        text.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                                        "a.txt"),
                                DocumentFormat.TEXT))
                .contains("<document format=\"text\">\nFirst line.\nSecond")
                .doesNotContain("\r");
        assertThat(
                        SUMMARY.promptForText(
                                "# Lease\n\n## Terms\nPay monthly.", DocumentFormat.MARKDOWN))
                .contains("title=\"Lease\"", "<section:terms>");
    }

    @Test
    void textNoReaderTakesGoesInAsWritten() {
        assertThat(SUMMARY.promptForText("   ", DocumentFormat.TEXT))
                .contains("<document format=\"text\">");
    }
}
