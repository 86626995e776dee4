package io.zerolayer.tests;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.zerolayer.cli.ZeroLayerCli;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code zerolayer device-check} builds a bundle that fits what a GPU host may receive, and {@code
 * gpu-udf/device-check/run.sh} runs it: here, without a GPU, its Java half on the bundled runtime
 * reports that nothing on the GPU was measured, and the script says why it measured nothing rather
 * than pretending.
 */
class DeviceCheckBundleTest {
    @Test
    void theBundleFitsAndItsScriptRunsItsCpuPartsFromTheBundledRuntime(@TempDir Path dir)
            throws Exception {
        Path bundle = dir.resolve("bundle");
        int exit =
                ZeroLayerCli.commandLine()
                        .execute(
                                "device-check",
                                "--out",
                                bundle.toString(),
                                "--samples",
                                "../samples",
                                "--jars",
                                "../jobs/target/lib");
        assertThat(exit).isZero();
        long bytes;
        try (Stream<Path> files = Files.walk(bundle)) {
            bytes = files.filter(Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum();
        }
        assertThat(bytes).isLessThan(60L << 20);
        JsonNode plan = new ObjectMapper().readTree(bundle.resolve("plan.json").toFile());
        // the batch sizes come from the compiler's plans of the samples for each GPU profile
        assertThat(plan.get("samples").asInt()).isPositive();
        JsonNode h200 = plan.path("profiles").path("nvidia-h200");
        assertThat(h200.get("batch-sizes")).isNotEmpty();
        assertThat(h200.get("batch-sizes").get(h200.get("batch-sizes").size() - 1).asInt())
                .isGreaterThan(1);
        assertThat(plan.path("profiles").has("cpu-avx2")).isFalse();
        // every tier of the catalog travels as a structural copy, fp32 ones to be timed as fp16 too
        assertThat(plan.get("tiers"))
                .extracting(t -> t.get("id").asText())
                .containsExactlyElementsOf(
                        io.zerolayer.gpu.EncoderModel.values().stream()
                                .map(io.zerolayer.gpu.EncoderModel::id)
                                .toList());
        for (JsonNode tier : plan.get("tiers")) {
            assertThat(bundle.resolve(tier.get("file").asText())).isRegularFile();
            assertThat(tier.get("also-fp16").asBoolean())
                    .isEqualTo(tier.get("precision").asText().equals("fp32"));
            assertThat(tier.get("cuda-plannable").asBoolean())
                    .isEqualTo(!tier.get("precision").asText().equals("int8"));
        }

        Path out = dir.resolve("out");
        ProcessBuilder withEnv =
                new ProcessBuilder("bash", "../gpu-udf/device-check/run.sh")
                        .redirectErrorStream(true);
        withEnv.environment().put("BUNDLE", bundle.toString());
        withEnv.environment().put("OUT", out.toString());
        Process script = withEnv.start();
        String log = new String(script.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int code = script.waitFor();
        JsonNode report = new ObjectMapper().readTree(out.resolve("java-report.json").toFile());
        if (report.get("cuda").asText().startsWith("unavailable")) {
            assertThat(log).contains("No CUDA device: nothing on the GPU was measured");
        }
        if (log.contains("not importable")) {
            assertThat(code).as(log).isEqualTo(3); // nothing measured is not a success
        } else {
            assertThat(log).contains("== done");
        }
    }
}
