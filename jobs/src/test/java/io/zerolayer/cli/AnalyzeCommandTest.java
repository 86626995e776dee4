package io.zerolayer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Mistakes a user can make with analyze exit 2 with a message saying what to do. */
class AnalyzeCommandTest {
    @TempDir Path dir;

    private int run(StringWriter err, String... args) {
        var cli = ZeroLayerCli.commandLine();
        cli.setErr(new PrintWriter(err, true));
        return cli.execute(args);
    }

    @Test
    void aTaskWithoutItsInputsIsAUsageError() throws Exception {
        Files.writeString(dir.resolve("a.txt"), "text");
        StringWriter err = new StringWriter();
        assertThat(run(err, "analyze", dir.toString(), "--task", "classify")).isEqualTo(2);
        assertThat(err.toString()).contains("needs --labels");
    }

    @Test
    void withoutATaskDocumentsAndTaskInputsAreUsageErrorsNamingWhatToGive() throws Exception {
        Files.writeString(dir.resolve("ticket.prompt"), "<task:classify><labels>a, b</labels>x");
        Files.writeString(dir.resolve("lease.txt"), "The tenant pays rent monthly.");
        String out = dir.resolve("o.jsonl").toString();
        StringWriter err = new StringWriter();
        assertThat(run(err, "analyze", dir.toString(), "--out", out)).isEqualTo(2);
        assertThat(err.toString()).contains("lease.txt is a document").contains("give --task");
        StringWriter err2 = new StringWriter();
        Path prompt = dir.resolve("ticket.prompt");
        assertThat(run(err2, "analyze", prompt.toString(), "--labels", "x", "--out", out))
                .isEqualTo(2);
        assertThat(err2.toString()).contains("--labels belong to a task");
    }

    @Test
    void badExamplesAreAUsageErrorNamingTheFileAndLine() throws Exception {
        Files.writeString(dir.resolve("a.txt"), "The kettle arrived broken.");
        Path examples = dir.resolve("examples.jsonl");
        Files.writeString(
                examples,
                "{\"text\": \"Refund me\", \"label\": \"refund\"}\n"
                        + "{\"text\": \"Money back please\", \"label\": \"refund\"}\n"
                        + "{\"text\": \"Site is down\", \"label\": \"outage\"}\n");
        String out = dir.resolve("o.jsonl").toString();
        StringWriter err = new StringWriter();
        assertThat(
                        run(
                                err,
                                "analyze",
                                dir.resolve("a.txt").toString(),
                                "--task",
                                "classify",
                                "--examples",
                                examples.toString(),
                                "--out",
                                out))
                .isEqualTo(2);
        assertThat(err.toString())
                .contains("--examples")
                .contains("every label needs at least 2 examples; 'outage' has 1");
        Files.writeString(
                examples, "{\"text\": \"Refund me\"}\n", java.nio.file.StandardOpenOption.APPEND);
        StringWriter err2 = new StringWriter();
        assertThat(
                        run(
                                err2,
                                "analyze",
                                dir.resolve("a.txt").toString(),
                                "--task",
                                "summarize",
                                "--examples",
                                examples.toString(),
                                "--out",
                                out))
                .isEqualTo(2);
        assertThat(err2.toString()).contains("examples.jsonl:4");
        StringWriter err3 = new StringWriter();
        assertThat(
                        run(
                                err3,
                                "analyze",
                                dir.resolve("a.txt").toString(),
                                "--examples",
                                examples.toString(),
                                "--out",
                                out))
                .isEqualTo(2);
        assertThat(err3.toString()).contains("--examples belong to a task");
    }

    @Test
    void aQualityThatNamesNoFloorIsAUsageError() throws Exception {
        Files.writeString(dir.resolve("a.txt"), "text");
        StringWriter err = new StringWriter();
        assertThat(
                        run(
                                err,
                                "analyze",
                                dir.toString(),
                                "--task",
                                "embed",
                                "--quality",
                                "great",
                                "--out",
                                dir.resolve("o.jsonl").toString()))
                .isEqualTo(2);
        assertThat(err.toString()).contains("fast, balanced or best, not 'great'");
    }

    @Test
    void unknownTasksAndMissingPathsAreUsageErrors() throws Exception {
        Files.writeString(dir.resolve("a.txt"), "text");
        StringWriter err = new StringWriter();
        assertThat(
                        run(
                                err,
                                "analyze",
                                dir.toString(),
                                "--task",
                                "summarise",
                                "--out",
                                dir.resolve("o.jsonl").toString()))
                .isEqualTo(2);
        assertThat(err.toString()).contains("Unknown task 'summarise'").contains("summarize");
        StringWriter err2 = new StringWriter();
        assertThat(
                        run(
                                err2,
                                "analyze",
                                dir.resolve("nope").toString(),
                                "--task",
                                "embed",
                                "--out",
                                dir.resolve("o.jsonl").toString()))
                .isEqualTo(2);
        assertThat(err2.toString()).contains("No such file or folder");
    }

    @Test
    void parallelismIsTheOptionElseTheClustersElseTheMachinesCores() {
        assertThat(AnalyzeCommand.parallelism(3, 8, true)).isEqualTo(3);
        assertThat(AnalyzeCommand.parallelism(null, 8, true)).isEqualTo(8); // flink run -p 8
        assertThat(AnalyzeCommand.parallelism(null, 8, false))
                .isEqualTo(Runtime.getRuntime().availableProcessors());
    }
}
