package io.zerolayer.analyze;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import org.junit.jupiter.api.Test;

class ProgressLineTest {
    @Test
    void rendersRatesAndAnEtaFromWhatIsDone() {
        ProgressLine line =
                new ProgressLine(new PrintStream(new ByteArrayOutputStream()), false, 40);
        for (int i = 0; i < 10; i++) {
            line.documentDone();
        }
        line.tokens(5_000);
        assertThat(line.render(5_000_000_000L))
                .isEqualTo(
                        "[######..................] 10/40 documents · 2.0 docs/s · 1,000 tokens/s"
                                + " · 00:05 elapsed · ETA 00:15");
    }

    @Test
    void staysSilentWhenNotOnATerminal() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ProgressLine line = new ProgressLine(new PrintStream(out), false, 2);
        line.documentDone();
        line.documentDone();
        line.finish();
        assertThat(out.size()).isZero();
    }

    @Test
    void drawsOnATerminalAndClearsItselfAtTheEnd() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ProgressLine line = new ProgressLine(new PrintStream(out), true, 1);
        line.documentDone();
        line.finish();
        assertThat(out.toString()).startsWith("\r[####").contains("1/1 documents").endsWith("\r");
    }
}
