package io.zerolayer.tests.testutils;

import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.cli.ZeroLayerCli;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What {@code zerolayer submit samples/} printed and its exit code: the first answer the docs
 * promise a user of a running job.
 */
public record SampleAnswers(String printed, int exitCode) {
    /** The repository's {@code samples/} folder. */
    public static final Path SAMPLES = Path.of("..", "samples").toAbsolutePath().normalize();

    /**
     * {@code zerolayer submit --bootstrap-servers … --command-config … --tenant … --tenants-file …
     * samples/}, in this JVM.
     */
    public static SampleAnswers submit(
            String bootstrapServers, Path commandConfig, String tenant, Path tenantsFile) {
        StringWriter printed = new StringWriter();
        int code =
                ZeroLayerCli.commandLine()
                        .setOut(new PrintWriter(printed, true))
                        .execute(
                                "submit",
                                "--bootstrap-servers",
                                bootstrapServers,
                                "--command-config",
                                commandConfig.toString(),
                                "--tenant",
                                tenant,
                                "--tenants-file",
                                tenantsFile.toString(),
                                SAMPLES.toString());
        return new SampleAnswers(printed.toString(), code);
    }

    /**
     * Every sample answered: the misspelt task refused by its contract with a diagnostic naming it
     * (so submit exits 1), every other sample OK.
     */
    public void assertEveryOneAnswered() {
        long samples;
        try (var files = Files.list(SAMPLES)) {
            samples = files.filter(f -> f.toString().endsWith(".prompt")).count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        assertThat(printed)
                .as(printed)
                .doesNotContain("[NO REPLY]")
                .contains(samples + " requests, 1 not OK")
                .containsPattern("(?m)^\\[[A-Z_]+\\]\\s+cs-06-typo-task")
                .contains("Unknown task 'sumarize'");
        assertThat(printed.lines().filter(l -> l.startsWith("[OK]"))).hasSize((int) samples - 1);
        assertThat(exitCode).isOne();
    }
}
