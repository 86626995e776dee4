package io.zerolayer.tests.bench;

import io.zerolayer.operators.compiler.GraphCompiler;
import io.zerolayer.operators.compiler.GraphIdentity;
import io.zerolayer.operators.contracts.TaskContracts;
import io.zerolayer.operators.structure.ClassifiedPrompt;
import io.zerolayer.operators.structure.StructureClassifier;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the pipeline pays per request before any model runs: read + type-check + structure signature
 * + graph id (SHA-256), on a 1 KB contract prompt and on 100 KB and 10 MB tag-sparse papers. Run
 * with {@code mvn -q -pl tests -am -Pbench verify}; divide the prompt size by the time for MB/s
 * (the summary line of {@link BenchMain} does it).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(
        value = 1,
        jvmArgs = {"-Xmx2g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class ClassifyBenchmark {
    @Param({"1KB", "100KB", "10MB"})
    public String size;

    private StructureClassifier classifier;
    private GraphCompiler compiler;
    private String prompt;

    @Setup
    public void setUp() {
        TaskContracts contracts = TaskContracts.builtIn();
        classifier = new StructureClassifier(contracts);
        compiler = new GraphCompiler(GraphIdentity.current(contracts.version(), "cpu-generic"));
        prompt =
                prompt(
                        switch (size) {
                            case "1KB" -> 1 << 10;
                            case "100KB" -> 100 << 10;
                            default -> 10 << 20;
                        });
    }

    /** A paper of {@code bytes} ASCII characters: a few tags, the rest prose. */
    static String prompt(int bytes) {
        String sentence =
                "The measured conductivity exceeded three thousand watts per metre kelvin at room"
                        + " temperature. ";
        StringBuilder sb = new StringBuilder(bytes + 256);
        sb.append(
                "<task:summarize sentences=\"3\"><output_format:json>\n"
                        + "<document format=\"pdf-text\" title=\"Heat in graphene\">");
        int sections = Math.max(2, Math.min(20, bytes / 4096));
        int perSection = bytes / sections;
        for (int s = 0; s < sections; s++) {
            sb.append("<section:s").append(s).append('>');
            int end = sb.length() + perSection - 40;
            while (sb.length() < end) {
                sb.append(sentence);
            }
            if (s == 1) {
                sb.append("<figure:1>Conductivity versus temperature.</figure>");
            }
            sb.append("</section>");
        }
        sb.append("</document>");
        return sb.toString();
    }

    @Benchmark
    public String classifyCheckAndHash() {
        ClassifiedPrompt p = classifier.classify(prompt);
        return p.compiles() ? compiler.graphId(p) : null; // a known shape's plan is kept
    }
}
