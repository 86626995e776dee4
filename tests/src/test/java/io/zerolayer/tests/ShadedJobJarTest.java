package io.zerolayer.tests;

import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.gpu.EncoderModel;
import io.zerolayer.gpu.Pooling;
import io.zerolayer.gpu.SentenceEncoder;
import io.zerolayer.tests.testutils.BuiltArtifacts;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;

/**
 * The job jar for a Flink cluster ({@code jobs/target/zerolayer-flink.jar}) carries Linux x86-64
 * natives only, and with them alone it still tokenizes and encodes: checked in a JVM of its own
 * whose classpath is that jar and the logging API a cluster provides.
 */
class ShadedJobJarTest {
    private static final Path JAR = Path.of("..", "jobs", "target", "zerolayer-flink.jar");

    @Test
    void theJarHoldsLinuxX86NativesOnlyAndTheyLoadAndEncode() throws Exception {
        BuiltArtifacts.jobJar();
        try (ZipFile jar = new ZipFile(JAR.toFile())) {
            List<String> names = jar.stream().map(ZipEntry::getName).toList();
            assertThat(names)
                    .contains(
                            "ai/onnxruntime/native/linux-x64/libonnxruntime.so",
                            "native/lib/linux-x86_64/cpu/libtokenizers.so",
                            "org/bytedeco/cuda/linux-x86_64/libjnicudart.so",
                            "all-minilm-l6-v2-q.onnx",
                            // the executor's embedding cache, which no Flink lib folder holds
                            "com/github/benmanes/caffeine/cache/Caffeine.class")
                    // every native library is for Linux on x86-64
                    .filteredOn(n -> n.matches(".*\\.(so|dylib|dll|jnilib)$"))
                    .allMatch(
                            n ->
                                    n.matches(
                                            ".*(linux-x86-64|linux-x86_64|linux-x64|linux/amd64).*"));
            assertThat(names)
                    .noneMatch(n -> n.contains("libjninpp"))
                    .noneMatch(n -> n.contains("asyncProfiler"))
                    .noneMatch(n -> n.endsWith("MetricReporterFactory"));
        }
        String slf4j =
                Path.of(
                                org.slf4j.LoggerFactory.class
                                        .getProtectionDomain()
                                        .getCodeSource()
                                        .getLocation()
                                        .toURI())
                        .toString();
        String classes =
                Path.of(
                                ShadedJobJarTest.class
                                        .getProtectionDomain()
                                        .getCodeSource()
                                        .getLocation()
                                        .toURI())
                        .toString();
        Process p =
                new ProcessBuilder(
                                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                                "-cp",
                                String.join(File.pathSeparator, JAR.toString(), slf4j, classes),
                                EncodeOnce.class.getName())
                        .redirectErrorStream(true)
                        .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out).contains("384 dimensions, unit length");
    }

    /** Encodes one sentence with the int8 encoder: run with the shaded jar as the classpath. */
    public static final class EncodeOnce {
        public static void main(String[] args) {
            try (SentenceEncoder encoder =
                    SentenceEncoder.open(EncoderModel.MINILM_L6_V2_INT8, 1)) {
                float[] v = encoder.embed(List.of("The pump failed twice."))[0];
                double norm = Math.sqrt(Pooling.cosine(v, v));
                System.out.println(
                        v.length
                                + " dimensions, "
                                + (Math.abs(norm - 1) < 1e-3 ? "unit length" : "norm " + norm));
            }
        }
    }
}
