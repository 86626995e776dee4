package io.zerolayer.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.zerolayer.gpu.SentenceEncoder;
import io.zerolayer.jobs.ExecutorOptions;
import io.zerolayer.jobs.HardwareOptions;
import io.zerolayer.jobs.ReplyDelivery;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.flink.configuration.Configuration;

/** What a comparison run says of itself in its report: the machine it ran on and its options. */
final class RunDescription {
    private RunDescription() {}

    /** The machine a run measured: cores, CPU, JVM, ONNX Runtime and the slot settings. */
    static ObjectNode machine(Configuration conf) {
        ObjectNode m = BenchWorker.JSON.createObjectNode();
        m.put("cores", Runtime.getRuntime().availableProcessors());
        m.put("java", System.getProperty("java.version"));
        m.put("os", System.getProperty("os.name") + " " + System.getProperty("os.arch"));
        m.put("onnxRuntime", SentenceEncoder.runtimeVersion());
        m.put("intraOpThreads", conf.get(HardwareOptions.INTRA_OP_THREADS));
        m.put("hardwareProfile", conf.get(HardwareOptions.HARDWARE_PROFILE));
        m.put("embeddingCacheBytes", conf.get(ExecutorOptions.EMBEDDING_CACHE_SIZE).getBytes());
        m.put("embeddingCacheScope", conf.get(ExecutorOptions.EMBEDDING_CACHE_SCOPE).toString());
        try {
            m.put(
                    "cpu",
                    Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
                            .filter(l -> l.startsWith("model name"))
                            .findFirst()
                            .map(l -> l.substring(l.indexOf(':') + 1).strip())
                            .orElse("unknown"));
        } catch (IOException e) {
            m.put("cpu", "unknown");
        }
        return m;
    }

    /** The options a run was given. */
    static ObjectNode options(ComparisonBench.Options o) {
        ObjectNode n = BenchWorker.JSON.createObjectNode();
        n.put("seed", o.seed());
        n.put("parallelism", o.parallelism());
        n.put("warmupSeconds", o.warmupSeconds());
        n.put("measureSeconds", o.measureSeconds());
        n.put("openLoopSeconds", o.openLoopSeconds());
        n.put("window", o.window());
        n.put("inFlightSeconds", o.inFlightSeconds());
        n.put("checkpointIntervalMillis", o.checkpointInterval().toMillis());
        n.put("replyDelivery", o.deliveries().get(0).toString());
        n.set(
                "replyDeliveries",
                BenchWorker.JSON.valueToTree(
                        o.deliveries().stream().map(ReplyDelivery::toString).toList()));
        n.put(
                "openLoopBase",
                o.systems().contains(ComparisonBench.ROUTER) ? ComparisonBench.ROUTER : "own");
        long slice = o.conf().get(ExecutorOptions.BATCH_SLICE).toMillis();
        n.put("sliceMillis", slice == 0 ? "no" : String.valueOf(slice));
        n.set("workerJvmOptions", BenchWorker.JSON.valueToTree(o.workerJvmOptions()));
        n.set("loads", BenchWorker.JSON.valueToTree(o.loads()));
        n.set("sizes", BenchWorker.JSON.valueToTree(o.sizes()));
        n.set("sizeRequests", BenchWorker.JSON.valueToTree(o.sizeRequests()));
        n.put("soakSeconds", o.soakSeconds());
        n.put("noisyFlood", o.noisyFlood());
        return n;
    }
}
