package io.zerolayer.tests;

import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.cli.ZeroLayerCli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Keeps the README's first command honest: {@code zerolayer demo} on the bundled samples and
 * flink-conf/, with its own embedded broker and MiniCluster, answers every request and exits 0.
 */
class DemoCommandITCase {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void demoAnswersEverySampleAndExitsZero() throws Exception {
        long samples;
        try (var files = Files.list(ROOT.resolve("samples"))) {
            samples = files.filter(f -> f.toString().endsWith(".prompt")).count();
        }
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream original = System.out;
        int exit;
        try (PrintStream out = new PrintStream(captured, true, StandardCharsets.UTF_8)) {
            System.setOut(out);
            exit =
                    new CommandLine(new ZeroLayerCli())
                            .execute(
                                    "demo",
                                    "--samples",
                                    ROOT.resolve("samples").toString(),
                                    "--config-dir",
                                    ROOT.resolve("flink-conf").toString(),
                                    "--rounds",
                                    "2");
        } finally {
            System.setOut(original);
        }
        String output = captured.toString(StandardCharsets.UTF_8);
        System.out.println(output);
        assertThat(exit).isZero();
        assertThat(output)
                .contains(samples * 2 + " sent, " + samples * 2 + " answered")
                .contains(", 0 unanswered");
        assertThat(output)
                .contains("[REJECTED] cs-06-typo-task")
                .contains("did you mean <task:summarize>?");
        // the second round runs entirely on warm graphs
        assertThat(output).containsPattern("(\\d+) distinct; \\1 compiles");
    }
}
