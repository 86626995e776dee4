package io.zerolayer.tests.bench;

import io.zerolayer.operators.compiler.GraphCompiler;
import io.zerolayer.operators.compiler.GraphIdentity;
import io.zerolayer.operators.contracts.TaskContracts;
import io.zerolayer.operators.execution.CompiledGraph;
import io.zerolayer.operators.execution.EncoderPool;
import io.zerolayer.operators.structure.StructureClassifier;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Micro-batches of customer-service tickets (one structure, so one graph) through a compiled graph
 * on one ONNX thread, as a slot runs them: time per batch, from which requests/s per batch size.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(
        value = 1,
        jvmArgs = {"-Xmx2g"})
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
public class BatchingBenchmark {
    @Param({"1", "2", "4", "8", "16"})
    public int batch;

    @Param({"fp32", "int8"})
    public String precision;

    private EncoderPool encoders;
    private CompiledGraph graph;
    private List<CompiledGraph.BatchInput> inputs;

    static String ticket(int i) {
        String[] issues = {
            "the parcel arrived two weeks late and the box was crushed",
            "my card was charged twice for the same order",
            "the app logs me out every time I open the settings page",
            "the thermostat shows the wrong temperature after the update"
        };
        return "<task:summarize><ticket>Ticket "
                + i
                + ": "
                + issues[i % issues.length]
                + ". I contacted support last week. Nobody answered my email. Please fix this or"
                + " refund me.</ticket>";
    }

    @Setup(Level.Trial)
    public void setUp() {
        TaskContracts contracts = TaskContracts.builtIn();
        StructureClassifier classifier = new StructureClassifier(contracts);
        encoders = new EncoderPool(1);
        var plan =
                new GraphCompiler(GraphIdentity.current(contracts.version(), "bench"))
                        .compile(classifier.classify(ticket(0)));
        graph = new CompiledGraph(precision.equals("int8") ? plan.fallback() : plan, encoders);
        inputs = new ArrayList<>();
        for (int i = 0; i < batch; i++) {
            inputs.add(CompiledGraph.BatchInput.of(classifier.classify(ticket(i)).parsed()));
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        encoders.close();
    }

    @Benchmark
    public Object runBatch() {
        return graph.executeBatch(inputs);
    }
}
