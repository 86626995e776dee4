package io.zerolayer.tests.bench;

import io.zerolayer.operators.compiler.ExecutionPlan;
import io.zerolayer.operators.compiler.GraphCompiler;
import io.zerolayer.operators.compiler.GraphIdentity;
import io.zerolayer.operators.contracts.TaskContracts;
import io.zerolayer.operators.execution.CompiledGraph;
import io.zerolayer.operators.execution.EncoderPool;
import io.zerolayer.operators.execution.WarmGraphCache;
import io.zerolayer.operators.structure.ClassifiedPrompt;
import io.zerolayer.operators.structure.StructureClassifier;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The executor's per-request graph work: looking up a warm graph by id among 64, and compiling a
 * new one (plan + binding to already open ONNX sessions; the one-off session load is excluded).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@Fork(
        value = 1,
        jvmArgs = {"-Xmx2g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class CompileBenchmark {
    private WarmGraphCache cache;
    private String[] ids;
    private int next;
    private EncoderPool encoders;
    private GraphCompiler compiler;
    private ClassifiedPrompt contract;

    @Setup(Level.Trial)
    public void setUp() {
        cache = new WarmGraphCache(64, 1L << 30, 3_600_000, System::currentTimeMillis);
        ids = new String[64];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = Integer.toHexString(i * 2654435761L > 0 ? i * 31 : i) + "a".repeat(56) + i;
            cache.put(ids[i], null, 1_000);
        }
        encoders = new EncoderPool(1);
        TaskContracts contracts = TaskContracts.builtIn();
        compiler = new GraphCompiler(GraphIdentity.current(contracts.version(), "cpu-generic"));
        contract = new StructureClassifier(contracts).classify(ClassifyBenchmark.prompt(4 << 10));
        // open the sessions once, outside the measurement
        new CompiledGraph(compiler.compile(contract), encoders);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        encoders.close();
    }

    @Benchmark
    @OutputTimeUnit(TimeUnit.NANOSECONDS)
    public Object warmLookup() {
        return cache.get(ids[next++ & 63]);
    }

    @Benchmark
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public CompiledGraph compileNewGraph() {
        ExecutionPlan plan = compiler.compile(contract);
        return new CompiledGraph(plan, encoders);
    }
}
