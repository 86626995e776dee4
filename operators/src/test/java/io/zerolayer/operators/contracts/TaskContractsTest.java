package io.zerolayer.operators.contracts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TaskContractsTest {
    private static final String MINIMAL =
            """
            version: 7
            tags:
              task: {value: {type: string, required: true}}
              output_format: {value: {type: enum, values: [json, text]}}
              memo: {must-close: true}
            tasks:
              digest: {decoder: summarize}
            """;

    @Test
    void theBuiltInContractsDeclareTheFiveTasksAndACustomOne() {
        TaskContracts c = TaskContracts.builtIn();
        assertThat(c.version()).isEqualTo("tasks-1");
        assertThat(c.taskNames())
                .contains("summarize", "classify", "answer", "embed", "extract", "triage");
        assertThat(c.task("triage").decoder()).isEqualTo("classify");
        assertThat(c.tag("document").attributes().get("format").values())
                .containsExactly("text", "markdown", "html", "pdf-text");
        assertThat(c.limits().maxDepth()).isEqualTo(32);
    }

    @Test
    void aUserTaskNeedsNoCode() {
        TaskContracts c = TaskContracts.parse(MINIMAL);
        assertThat(c.version()).isEqualTo("tasks-7");
        assertThat(c.task("digest").outputFormats()).containsExactly("json", "text");
        assertThat(c.limits()).isEqualTo(Limits.DEFAULTS);
    }

    @Test
    void mistakesAreNamedByTheirKey() {
        assertThatThrownBy(
                        () ->
                                TaskContracts.parse(
                                        MINIMAL.replace(
                                                "decoder: summarize", "decoder: translate")))
                .isInstanceOf(ContractException.class)
                .hasMessageContaining("tasks.digest.decoder")
                .hasMessageContaining("translate");
        assertThatThrownBy(
                        () ->
                                TaskContracts.parse(
                                        MINIMAL.replace(
                                                "{decoder: summarize}",
                                                "{decoder: summarize, requires: [memoo]}")))
                .hasMessageContaining("unknown tag 'memoo'");
        assertThatThrownBy(
                        () ->
                                TaskContracts.parse(
                                        MINIMAL.replace("must-close: true", "must_close: true")))
                .hasMessageContaining("Unknown key 'must_close' in tags.memo");
        assertThatThrownBy(
                        () ->
                                TaskContracts.parse(
                                        MINIMAL.replace("values: [json, text]", "values: []")))
                .hasMessageContaining("enum without values");
        assertThatThrownBy(() -> TaskContracts.parse(MINIMAL.replace("version: 7\n", "")))
                .hasMessageContaining("'version' is required");
        assertThatThrownBy(() -> TaskContracts.parse("tasks: ["))
                .hasMessageContaining("Not valid YAML");
    }
}
