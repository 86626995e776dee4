package io.zerolayer.tests;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.zerolayer.cli.ZeroLayerCli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code zerolayer check} as a user's CI runs it: output formats and exit codes. */
class CheckCommandTest {
    @TempDir Path dir;

    private record Run(int exit, String out) {}

    private Run check(String... args) {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream original = System.out;
        try (PrintStream out = new PrintStream(captured, true, StandardCharsets.UTF_8)) {
            System.setOut(out);
            String[] full = new String[args.length + 1];
            full[0] = "check";
            System.arraycopy(args, 0, full, 1, args.length);
            int exit = new CommandLine(new ZeroLayerCli()).execute(full);
            return new Run(exit, captured.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(original);
        }
    }

    @Test
    void cleanPromptsExitZeroAndBadOnesOneWithCompilerStyleLines() throws Exception {
        Path good =
                Files.writeString(
                        dir.resolve("good.prompt"),
                        "<task:answer><question>Who pays?</question><note>The buyer pays.</note>");
        Path bad =
                Files.writeString(
                        dir.resolve("bad.prompt"),
                        "<task:answer>\n<documnet format=\"text\">x</documnet>");
        assertThat(check(good.toString()).exit()).isZero();
        Run run = check(dir.toString());
        assertThat(run.exit()).isEqualTo(1);
        assertThat(run.out())
                .contains(
                        bad
                                + ":2:1: error[ZL020]: Unknown tag <documnet> (did you mean"
                                + " <document>?)")
                .contains(bad + ":1:1: error[ZL011]:")
                .doesNotContain("good.prompt");
    }

    @Test
    void jsonOutputListsEveryDiagnostic() throws Exception {
        Path bad =
                Files.writeString(
                        dir.resolve("x.prompt"),
                        "<task:summarize sentences=\"many\"><document>t</document>");
        Run run = check("--format", "json", bad.toString());
        assertThat(run.exit()).isEqualTo(1);
        JsonNode report = new ObjectMapper().readTree(run.out());
        assertThat(report).hasSize(2);
        assertThat(report.findValuesAsText("code")).containsExactlyInAnyOrder("ZL024", "ZL022");
        assertThat(report.get(0).get("file").asText()).isEqualTo(bad.toString());
    }

    @Test
    void usageErrorsExitTwo() {
        assertThat(check(dir.resolve("missing.prompt").toString()).exit()).isEqualTo(2);
        assertThat(check("--format", "xml", dir.toString()).exit()).isEqualTo(2);
        assertThat(check().exit()).isEqualTo(2);
    }
}
