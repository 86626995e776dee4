package io.zerolayer.operators.scheduling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.zerolayer.operators.contracts.SafeModePolicy;
import io.zerolayer.operators.execution.EmbeddingCache;
import io.zerolayer.operators.execution.ExecutionSettings;
import io.zerolayer.operators.execution.WarmGraphCache;
import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.AnalysisResponse;
import io.zerolayer.schemas.ResponseStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An answer is a function of its request alone: the samples of every task, answered one at a time
 * and all in one call (their encoder passes joined across graphs, padded to each other), give the
 * same labels, passages, sentences and vectors, every number within 1e-4. {@code fast} runs the
 * int8 tier, {@code best} fp32; each shipped tier's encoder is checked alone and batched in {@code
 * SentenceEncoderTest}.
 */
class BatchInvarianceTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static InProcessAnalyzer analyzer;

    @BeforeAll
    static void open() {
        analyzer =
                InProcessAnalyzer.open(
                        new InProcessAnalyzer.Settings(
                                ExecutorSetup.of(
                                        null,
                                        "cpu-generic",
                                        new WarmGraphCache.Bounds(32, 256 << 20, 3_600_000),
                                        ExecutionSettings.DEFAULTS),
                                SafeModePolicy.of(SafeModePolicy.Policy.STRICT, Map.of()),
                                1 << 20,
                                EmbeddingCache.Settings.OFF));
    }

    @AfterAll
    static void close() {
        analyzer.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"fast", "best"})
    void everySampleIsAnsweredAloneAsInABatchOfAllOfThem(String quality) throws IOException {
        List<AnalysisRequest> requests = samples(quality);
        List<AnalysisResponse> together =
                analyzer.analyse(requests).stream()
                        .map(InProcessAnalyzer.Answer::response)
                        .toList();
        int compared = 0;
        for (int i = 0; i < requests.size(); i++) {
            AnalysisResponse alone = analyzer.analyse(List.of(requests.get(i))).get(0).response();
            AnalysisResponse batched = together.get(i);
            String id = requests.get(i).getRequestId();
            assertThat(batched.getStatus()).as(id).isEqualTo(alone.getStatus());
            assertThat(batched.getGraphId()).as(id).isEqualTo(alone.getGraphId());
            if (alone.getStatus() == ResponseStatus.OK) {
                if (alone.getOutput().startsWith("{")) {
                    sameAnswer(
                            id,
                            JSON.readTree(alone.getOutput()),
                            JSON.readTree(batched.getOutput()));
                } else {
                    // a text answer rounds its scores: equal vectors print equal text
                    assertThat(batched.getOutput()).as(id).isEqualTo(alone.getOutput());
                }
                compared++;
            }
        }
        assertThat(compared).isGreaterThanOrEqualTo(10);
    }

    /** Equal text and structure; numbers within 1e-4. */
    private static void sameAnswer(String path, JsonNode alone, JsonNode batched) {
        if (alone.isNumber()) {
            assertThat(batched.isNumber()).as(path).isTrue();
            assertThat(batched.asDouble()).as(path).isCloseTo(alone.asDouble(), within(1e-4));
        } else if (alone.isContainerNode()) {
            assertThat(batched.size()).as(path).isEqualTo(alone.size());
            if (alone.isArray()) {
                for (int i = 0; i < alone.size(); i++) {
                    sameAnswer(path + "[" + i + "]", alone.get(i), batched.get(i));
                }
            } else {
                for (Iterator<String> names = alone.fieldNames(); names.hasNext(); ) {
                    String name = names.next();
                    assertThat(batched.has(name)).as(path + "." + name).isTrue();
                    sameAnswer(path + "." + name, alone.get(name), batched.get(name));
                }
            }
        } else {
            assertThat(batched).as(path).isEqualTo(alone);
        }
    }

    private static List<AnalysisRequest> samples(String quality) throws IOException {
        Path folder = Path.of("..", "samples");
        List<AnalysisRequest> out = new ArrayList<>();
        try (Stream<Path> files = Files.list(folder)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".prompt")).sorted().toList()) {
                out.add(
                        AnalysisRequest.newBuilder()
                                .setRequestId(f.getFileName().toString())
                                .setTenantId("batch-invariance")
                                .setPrompt(Files.readString(f))
                                .setSubmittedAt(Instant.now())
                                .setAttributes(Map.of("quality", quality))
                                .build());
            }
        }
        return out;
    }
}
