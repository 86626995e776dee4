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
        // the second round runs entirely on warm graphs: each graph compiled at most once, and
        // not at all when flink-conf/precompile.yaml had it compiled before the first request
        java.util.regex.Matcher graphs =
                java.util.regex.Pattern.compile("(\\d+) distinct; (\\d+) compiles").matcher(output);
        assertThat(graphs.find()).isTrue();
        int distinct = Integer.parseInt(graphs.group(1));
        int compiles = Integer.parseInt(graphs.group(2));
        int precompiled =
                io.zerolayer.operators.warmup.PrecompileList.parse(
                                Files.readString(ROOT.resolve("flink-conf/precompile.yaml")))
                        .structures()
                        .size();
        assertThat(compiles).isBetween(distinct - precompiled, distinct);
    }
}
