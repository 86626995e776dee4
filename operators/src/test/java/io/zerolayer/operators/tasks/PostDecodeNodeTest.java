package io.zerolayer.operators.tasks;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.junit.jupiter.api.Test;

class PostDecodeNodeTest {
    private static final TaskInput NO_INPUT =
            new TaskInput(null, List.of(), new float[0][], List.of(), new float[0][], "m");
    private static final PostDecodeNode.Context CONTEXT =
            new PostDecodeNode.Context("graph-1", "the prompt", "abc123");

    @Test
    void redactionMasksPersonalDataAndKeepsJsonValid() throws Exception {
        String output =
                "{\"text\":\"Write to jane.doe+shop@example.co.uk or call +49 30 1234 5678."
                        + " IBAN DE89 3704 0044 0532 0130 00, card 4111 1111 1111 1111."
                        + " Order 12345 shipped in 2024, rated 4.5 of 5.\"}";
        PostDecodeNode.Result r =
                PostDecodeNode.forKind("redact").apply(NO_INPUT, output, "json", CONTEXT);
        JsonNode json = new ObjectMapper().readTree(r.output());
        assertThat(json.get("text").asText())
                .isEqualTo(
                        "Write to [EMAIL] or call [PHONE]. IBAN [IBAN], card [CARD]. Order 12345"
                                + " shipped in 2024, rated 4.5 of 5.");
        assertThat(r.annotations())
                .containsEntry("redacted.email", "1")
                .containsEntry("redacted.phone", "1")
                .containsEntry("redacted.iban", "1")
                .containsEntry("redacted.card", "1");
    }

    @Test
    void auditRecordsHashesOfPromptAndOutputAndTheGraphThatRan() {
        PostDecodeNode.Result r =
                PostDecodeNode.forKind("audit").apply(NO_INPUT, "the answer", "text", CONTEXT);
        assertThat(r.output()).isEqualTo("the answer");
        assertThat(r.annotations())
                .containsEntry("audit.prompt-sha256", Audit.sha256("the prompt"))
                .containsEntry("audit.output-sha256", Audit.sha256("the answer"))
                .containsEntry("audit.graph-id", "graph-1")
                .containsEntry("audit.model", "m@abc123");
        assertThat(Audit.sha256("the prompt")).hasSize(64).isNotEqualTo(Audit.sha256("the answer"));
    }
}
