package io.zerolayer.tests;

import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.cluster.LocalCluster;
import io.zerolayer.gpu.EncoderModel;
import io.zerolayer.tests.testutils.BuiltArtifacts;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code zerolayer-flink-lib.jar} is all a Flink cluster's {@code lib/} needs for ZeroLayer: in a
 * JVM whose class path is that jar and SLF4J (which every Flink lib/ has), a tokenizer loads and
 * encodes and ONNX Runtime opens a shipped encoder; and every package the jar holds is one the
 * documented parent-first patterns name, so the job's own copies never load instead.
 */
class FlinkLibJarTest {

    /** Run as a single-file source program on the lib jar's class path alone. */
    private static final String PROBE =
            """
            import java.nio.file.*;
            import java.util.Map;
            public class Probe {
                public static void main(String[] args) throws Exception {
                    try (var in = Files.newInputStream(Path.of(args[0]))) {
                        var tokenizer = ai.djl.huggingface.tokenizers.HuggingFaceTokenizer
                                .newInstance(in, Map.of("addSpecialTokens", "false"));
                        System.out.println("tokens " + tokenizer.encode("Where is my refund?")
                                .getIds().length);
                    }
                    var env = ai.onnxruntime.OrtEnvironment.getEnvironment();
                    try (var session = env.createSession(args[1],
                            new ai.onnxruntime.OrtSession.SessionOptions())) {
                        System.out.println("inputs " + session.getInputNames());
                    }
                }
            }
            """;

    @Test
    void aJvmWithOnlyTheLibJarLoadsATokenizerAndOnnxRuntime(@TempDir Path dir) throws Exception {
        Path lib = BuiltArtifacts.flinkLibJar();
        Path slf4j;
        try (Stream<Path> jars = Files.list(BuiltArtifacts.flinkLib())) {
            slf4j =
                    jars.filter(j -> j.getFileName().toString().startsWith("slf4j-api-"))
                            .findFirst()
                            .orElseThrow();
        }
        EncoderModel model = EncoderModel.MINILM_L6_V2_INT8;
        Path tokenizer = dir.resolve("tokenizer.json");
        Path weights = dir.resolve("model.onnx");
        try (InputStream t = model.openTokenizer();
                InputStream w = model.openWeights()) {
            Files.copy(t, tokenizer);
            Files.copy(w, weights);
        }
        Path probe = dir.resolve("Probe.java");
        Files.writeString(probe, PROBE);
        Path launcher = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p =
                new ProcessBuilder(
                                launcher.toString(),
                                "-cp",
                                lib.toAbsolutePath() + java.io.File.pathSeparator + slf4j,
                                // its natives extracted where this test cleans up
                                "-Djava.io.tmpdir=" + dir,
                                "-DDJL_CACHE_DIR=" + dir.resolve("djl"),
                                probe.toString(),
                                tokenizer.toString(),
                                weights.toString())
                        .redirectErrorStream(true)
                        .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out).containsPattern("tokens [1-9]").contains("inputs [input_ids");
    }

    @Test
    void everyClassInTheLibJarIsUnderADocumentedParentFirstPattern() throws Exception {
        List<String> patterns = List.of(LocalCluster.PARENT_FIRST_PATTERNS.split(";"));
        List<String> outside = new ArrayList<>();
        try (ZipFile jar = new ZipFile(BuiltArtifacts.flinkLibJar().toFile())) {
            for (var e : Collections.list(jar.entries())) {
                String name = e.getName();
                if (name.endsWith(".class")) {
                    String cls = name.replace('/', '.');
                    if (patterns.stream().noneMatch(cls::startsWith)) {
                        outside.add(cls);
                    }
                }
            }
        }
        assertThat(outside).as("classes the cluster would load child-first").isEmpty();
    }
}
