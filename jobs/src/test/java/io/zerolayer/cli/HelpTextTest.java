package io.zerolayer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Every command's --help renders: picocli formats descriptions as format strings, so a bare {@code
 * %} (as in "13-18 % of") makes it warn on stderr and print the raw text instead.
 */
class HelpTextTest {
    @Test
    void everyCommandsHelpIsFormattedWithoutWarnings() {
        CommandLine cli = ZeroLayerCli.commandLine();
        assertThat(cli.getSubcommands()).isNotEmpty();
        PrintStream stderr = System.err;
        ByteArrayOutputStream warnings = new ByteArrayOutputStream();
        System.setErr(new PrintStream(warnings, true, StandardCharsets.UTF_8));
        try {
            for (var e : cli.getSubcommands().entrySet()) {
                String usage = e.getValue().getUsageMessage(CommandLine.Help.Ansi.OFF);
                assertThat(usage).as(e.getKey()).contains("Usage: zerolayer " + e.getKey());
                assertThat(usage).as(e.getKey()).doesNotContain("%n");
            }
        } finally {
            System.setErr(stderr);
        }
        assertThat(warnings.toString(StandardCharsets.UTF_8)).doesNotContain("Could not format");
    }

    @Test
    void outsideAFlinkClusterTheCliMayExitWithItsCode() {
        assertThat(ZeroLayerCli.insideFlink()).isFalse();
    }
}
