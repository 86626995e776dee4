package io.zerolayer.operators.contracts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A classify task's labelled examples, inline in tasks.yaml or from a file of JSON lines. */
class LabelledExamplesTest {
    private static final String HEAD =
            """
            version: 3
            tags:
              task: {value: {type: string, required: true}}
              output_format: {value: {type: enum, values: [json, text]}}
              labels: {must-close: true}
              ticket: {must-close: true}
            tasks:
              triage:
                decoder: classify
            """;

    private static final String INLINE =
            HEAD
                    + """
                        examples:
                          refund: ["I want my money back", "Please return my payment"]
                          outage: ["The site is down", "Nothing loads since noon"]
                    """;

    private static final String LINES =
            """
            {"text": "I want my money back", "label": "refund"}
            {"text": "Please return my payment", "label": "refund"}

            {"text": "The site is down", "label": "outage"}
            {"text": "Nothing loads since noon", "label": "outage"}
            """;

    @TempDir Path dir;

    private Path contractsWithFile(String lines, String extra) throws Exception {
        Files.writeString(dir.resolve("triage.jsonl"), lines);
        Path contracts = dir.resolve("tasks.yaml");
        Files.writeString(contracts, HEAD + extra + "    examples-file: triage.jsonl\n");
        return contracts;
    }

    @Test
    void inlineExamplesGiveTheTaskItsLabelsInTheOrderWritten() {
        LabelledExamples examples = TaskContracts.parse(INLINE).task("triage").examples();
        assertThat(examples.labels()).containsExactly("refund", "outage");
        assertThat(examples.examples()).hasSize(4);
        assertThat(examples.examples().get(3).where()).isEqualTo("tasks.triage.examples.outage[1]");
        assertThat(TaskContracts.parse(HEAD).task("triage").examples()).isNull();
    }

    @Test
    void aFileBesideTheContractsHoldsTheSameExamplesAndTravelsInline() throws Exception {
        TaskContracts fromFile = TaskContracts.load(contractsWithFile(LINES, ""));
        LabelledExamples examples = fromFile.task("triage").examples();
        assertThat(examples.labels()).containsExactly("refund", "outage");
        assertThat(examples.sha256())
                .isEqualTo(TaskContracts.parse(INLINE).task("triage").examples().sha256());
        // what a TaskManager, or the control topic, parses again: no file needed there
        assertThat(fromFile.source()).doesNotContain("examples-file").contains("money back");
        Files.delete(dir.resolve("triage.jsonl"));
        assertThat(TaskContracts.parse(fromFile.source()).task("triage").examples().sha256())
                .isEqualTo(examples.sha256());
    }

    @Test
    void declaredLabelsAreTheTasksOwnAndEachNeedsExamples() {
        String declared =
                INLINE.replace("    examples:", "    labels: [outage, refund]\n    examples:");
        // the declared order, not the examples'
        assertThat(TaskContracts.parse(declared).task("triage").examples().labels())
                .containsExactly("outage", "refund");
        String unexampled =
                INLINE.replace(
                        "    examples:", "    labels: [refund, outage, login]\n    examples:");
        assertThatThrownBy(() -> TaskContracts.parse(unexampled))
                .isInstanceOf(ContractException.class)
                .hasMessageContaining("'login' has 0");
    }

    @Nested
    class MistakesNameTheFileAndLine {
        @Test
        void aLabelOutsideTheTasksLabels() throws Exception {
            String lines = LINES.replace("\"label\": \"outage\"}\n{", "\"label\": \"outgae\"}\n{");
            Path contracts = contractsWithFile(lines, "    labels: [refund, outage]\n");
            assertThatThrownBy(() -> TaskContracts.load(contracts))
                    .isInstanceOf(ContractException.class)
                    .hasMessageContaining("triage.jsonl:4")
                    .hasMessageContaining("'outgae' is not one of the task's labels")
                    .hasMessageContaining("did you mean 'outage'");
        }

        @Test
        void fewerThanTwoExamplesOfALabel() throws Exception {
            String lines = LINES + "{\"text\": \"I cannot log in\", \"label\": \"login\"}\n";
            assertThatThrownBy(() -> TaskContracts.load(contractsWithFile(lines, "")))
                    .hasMessageContaining("triage.jsonl")
                    .hasMessageContaining("at least 2 examples; 'login' has 1");
        }

        @Test
        void aLineThatIsNotAnExample() throws Exception {
            String lines = LINES.replace("{\"text\": \"The site is down\", ", "{\"txt\": \"x\", ");
            assertThatThrownBy(() -> TaskContracts.load(contractsWithFile(lines, "")))
                    .hasMessageContaining("triage.jsonl:4: an example must be");
            assertThatThrownBy(() -> TaskContracts.load(contractsWithFile("{oops\n", "")))
                    .hasMessageContaining("triage.jsonl:1: not JSON");
            assertThatThrownBy(
                            () ->
                                    TaskContracts.load(
                                            contractsWithFile(
                                                    LINES.replace("Nothing loads since noon", " "),
                                                    "")))
                    .hasMessageContaining("triage.jsonl:5: the text is blank");
        }

        @Test
        void aMissingFile() throws Exception {
            Path contracts = contractsWithFile(LINES, "");
            Files.delete(dir.resolve("triage.jsonl"));
            assertThatThrownBy(() -> TaskContracts.load(contracts))
                    .hasMessageContaining(dir.resolve("triage.jsonl").toString())
                    .hasMessageContaining("does not exist");
        }

        @Test
        void examplesWhereNoneBelong() {
            assertThatThrownBy(
                            () ->
                                    TaskContracts.parse(
                                            INLINE.replace(
                                                    "decoder: classify", "decoder: summarize")))
                    .hasMessageContaining("tasks.triage: only a classify task takes examples");
            assertThatThrownBy(
                            () -> TaskContracts.parse(INLINE + "    examples-file: triage.jsonl\n"))
                    .hasMessageContaining("both examples and examples-file");
        }

        @Test
        void anExamplesFileNamedByContractsThatCameFromElsewhere() {
            // the control topic's reload-contracts text must not make a TaskManager read files
            assertThatThrownBy(() -> TaskContracts.parse(HEAD + "    examples-file: /etc/passwd\n"))
                    .hasMessageContaining("tasks.triage.examples-file")
                    .hasMessageContaining("only contracts read from a file");
            assertThatThrownBy(() -> TaskContracts.parse(HEAD + "    labels: [a, b]\n"))
                    .hasMessageContaining("tasks.triage.labels is given without examples");
        }
    }

    @Test
    void examplesGivenAsTextAreJsonLinesOrOneArrayAndErrorsNameWhere() {
        LabelledExamples lines = LabelledExamples.parse(LINES, null, "'examples'");
        LabelledExamples array =
                LabelledExamples.parse(
                        "[{\"text\": \"I want my money back\", \"label\": \"refund\"},"
                                + " {\"text\": \"Please return my payment\", \"label\":"
                                + " \"refund\"}, {\"text\": \"The site is down\", \"label\":"
                                + " \"outage\"}, {\"text\": \"Nothing loads since noon\","
                                + " \"label\": \"outage\"}]",
                        null,
                        "'examples'");
        assertThat(array.sha256()).isEqualTo(lines.sha256());
        assertThat(array.labels()).containsExactly("refund", "outage");
        assertThatThrownBy(
                        () ->
                                LabelledExamples.parse(
                                        "[{\"text\": \"a\", \"label\": \"x\"}, {\"txt\": 1}]",
                                        null,
                                        "'examples'"))
                .hasMessageContaining("'examples'[1]");
        assertThatThrownBy(() -> LabelledExamples.parse(LINES, java.util.List.of("refund"), "'e'"))
                .hasMessageContaining("'e':4")
                .hasMessageContaining("not one of the task's labels");
    }

    @Test
    void contractsGivenExamplesClassifyByThemAndNoLongerAskForLabels() {
        TaskContracts base = TaskContracts.parse(HEAD + "    requires: [labels, ticket]\n");
        LabelledExamples examples = LabelledExamples.parse(LINES, null, "--examples");
        TaskContracts taught = base.withExamples("triage", examples);
        assertThat(taught.task("triage").examples().sha256()).isEqualTo(examples.sha256());
        assertThat(taught.task("triage").requires()).containsExactly("ticket");
        assertThat(base.task("triage").requires()).contains("labels");
        // the text travels with them: parsed again it holds the same examples
        assertThat(TaskContracts.parse(taught.source()).task("triage").examples().sha256())
                .isEqualTo(examples.sha256());
        // taught contracts are other contracts under the same version: no compiler of the
        // untaught ones, nor of other examples, serves them
        assertThat(taught.version()).startsWith(base.version() + "+examples-");
        assertThat(
                        base.withExamples(
                                        "triage",
                                        LabelledExamples.parse(
                                                LINES.replace("noon", "one"), null, "e"))
                                .version())
                .isNotEqualTo(taught.version());
        assertThatThrownBy(() -> base.withExamples("summarize", examples))
                .hasMessageContaining("No task 'summarize'");
    }

    @Test
    void aMinProbabilityIsANumberBetweenZeroAndOneOnATaskWithExamples() {
        assertThat(
                        TaskContracts.parse(INLINE + "    min-probability: 0.6\n")
                                .task("triage")
                                .minProbability())
                .isEqualTo(0.6);
        assertThat(TaskContracts.parse(INLINE).task("triage").minProbability()).isNaN();
        assertThatThrownBy(() -> TaskContracts.parse(INLINE + "    min-probability: 1.5\n"))
                .hasMessageContaining("tasks.triage.min-probability is '1.5'");
        assertThatThrownBy(() -> TaskContracts.parse(HEAD + "    min-probability: 0.5\n"))
                .hasMessageContaining("min-probability needs examples");
    }
}
