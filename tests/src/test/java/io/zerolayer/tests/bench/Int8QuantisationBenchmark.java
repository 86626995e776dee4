package io.zerolayer.tests.bench;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import io.zerolayer.gpu.EncoderModel;
import io.zerolayer.gpu.quantization.PerRowQuantization;
import java.io.InputStream;
import java.nio.LongBuffer;
import java.util.Map;
import java.util.Random;
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
 * What batch invariance costs an int8 encoder: one ONNX Runtime run of {@code batch} sequences of
 * {@code tokens} tokens on one intra-op thread, with the shipped graph's per-tensor activation
 * scales ({@code per-tensor}) and with {@link PerRowQuantization}'s per-row scales ({@code
 * per-row}, what sessions run). Both graphs in one run, so their ratio is measured on the same
 * machine state.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(
        value = 1,
        jvmArgs = {"-Xmx2g"})
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 4, time = 3)
public class Int8QuantisationBenchmark {
    @Param({"minilm-l6-v2-int8", "bge-small-en-v1.5-int8"})
    public String tier;

    @Param({"per-tensor", "per-row"})
    public String scales;

    @Param({"1", "8"})
    public int batch;

    @Param({"128"})
    public int tokens;

    private OrtEnvironment env;
    private OrtSession session;
    private Map<String, OnnxTensor> inputs;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        EncoderModel model = EncoderModel.byId(tier);
        byte[] onnx;
        try (InputStream in = model.openWeights()) {
            onnx = in.readAllBytes();
        }
        if (scales.equals("per-row")) {
            onnx = PerRowQuantization.rewrite(onnx).model();
        }
        env = OrtEnvironment.getEnvironment();
        OrtSession.SessionOptions options = new OrtSession.SessionOptions();
        options.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.ALL_OPT);
        options.setIntraOpNumThreads(1);
        session = env.createSession(onnx, options);
        long[] ids = new long[batch * tokens];
        long[] mask = new long[batch * tokens];
        Random random = new Random(46);
        for (int i = 0; i < ids.length; i++) {
            ids[i] = 1000 + random.nextInt(20000);
            mask[i] = 1;
        }
        long[] shape = {batch, tokens};
        inputs =
                Map.of(
                        "input_ids", OnnxTensor.createTensor(env, LongBuffer.wrap(ids), shape),
                        "attention_mask",
                                OnnxTensor.createTensor(env, LongBuffer.wrap(mask), shape),
                        "token_type_ids",
                                OnnxTensor.createTensor(
                                        env, LongBuffer.wrap(new long[ids.length]), shape));
        if (!session.getInputNames().contains("token_type_ids")) {
            inputs =
                    Map.of(
                            "input_ids",
                            inputs.get("input_ids"),
                            "attention_mask",
                            inputs.get("attention_mask"));
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        for (OnnxTensor t : inputs.values()) {
            t.close();
        }
        session.close();
    }

    @Benchmark
    public float run() throws Exception {
        try (OrtSession.Result result = session.run(inputs)) {
            return ((OnnxTensor) result.get(0)).getFloatBuffer().get(0);
        }
    }
}
