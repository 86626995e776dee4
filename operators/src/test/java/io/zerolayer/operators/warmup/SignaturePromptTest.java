package io.zerolayer.operators.warmup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zerolayer.operators.contracts.TaskContracts;
import io.zerolayer.operators.structure.ClassifiedPrompt;
import io.zerolayer.operators.structure.StructureClassifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class SignaturePromptTest {
    private static final StructureClassifier CLASSIFIER =
            new StructureClassifier(TaskContracts.builtIn());

    static Stream<Path> samples() throws Exception {
        return Files.list(Path.of("../samples"))
                .filter(p -> p.toString().endsWith(".prompt"))
                .sorted();
    }

    @ParameterizedTest
    @MethodSource("samples")
    void aSynthesisedPromptHasTheSignatureItWasWrittenFrom(Path sample) throws Exception {
        ClassifiedPrompt original = CLASSIFIER.classify(Files.readString(sample));
        if (!original.compiles()) {
            return; // the typo sample has no graph to restore
        }
        String synthetic = SignaturePrompt.of(original.signature().canonical());
        ClassifiedPrompt again = CLASSIFIER.classify(synthetic);
        assertThat(again.diagnostics()).as(synthetic).isEmpty();
        assertThat(again.signature()).isEqualTo(original.signature());
        assertThat(synthetic).doesNotContain("thermal conductivity"); // no text of the original
    }

    @org.junit.jupiter.api.Test
    void garbageIsRefused() {
        assertThatThrownBy(() -> SignaturePrompt.of("task:embed)"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
