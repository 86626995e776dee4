package io.zerolayer.tests.bench;

import io.zerolayer.operators.contracts.SafeModePolicy;
import io.zerolayer.operators.contracts.TaskContracts;
import io.zerolayer.operators.execution.ExecutionSettings;
import io.zerolayer.operators.execution.WarmGraphCache;
import io.zerolayer.operators.flink.ControlCommand;
import io.zerolayer.operators.flink.DecodeAndClassifyFunction;
import io.zerolayer.operators.flink.GraphExecutorFunction;
import io.zerolayer.operators.flink.HotGraphSharder;
import io.zerolayer.operators.kafka.RawRecord;
import io.zerolayer.operators.replies.Reply;
import io.zerolayer.operators.routing.RoutedRequest;
import io.zerolayer.operators.scheduling.ExecutorSetup;
import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.serde.SingleObjectCodec;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.util.KeyedBroadcastOperatorTestHarness;
import org.apache.flink.streaming.util.ProcessFunctionTestHarnesses;

/**
 * What micro-batching costs a request at low load: requests arrive one at a time, far apart, at the
 * real executor operator (Flink's operator harness, its processing-time clock driven by the wall
 * clock), so each waits for its batch's queue delay. Prints the p50 and p90 time from arrival to
 * reply with batching off and on; the difference is the added latency.
 */
public final class QueueDelayBench {
    private QueueDelayBench() {}

    record Result(String label, double p50Millis, double p90Millis) {}

    static List<Result> run(int requests, long gapMillis, int batchSize, long maxDelayMillis)
            throws Exception {
        List<RoutedRequest> routed = routed(requests + 1);
        Result off =
                measure(
                        "batching off (batch 1)",
                        routed,
                        ExecutionSettings.DEFAULTS.withBatchSize(1),
                        gapMillis);
        Result on =
                measure(
                        "batch " + batchSize + ", max-queue-delay " + maxDelayMillis + " ms",
                        routed,
                        new ExecutionSettings(batchSize, maxDelayMillis, 0, 0, false),
                        gapMillis);
        return List.of(off, on);
    }

    private static Result measure(
            String label, List<RoutedRequest> routed, ExecutionSettings settings, long gapMillis)
            throws Exception {
        GraphExecutorFunction executor =
                new GraphExecutorFunction(
                        ExecutorSetup.of(
                                TaskContracts.builtIn().source(),
                                "auto",
                                new WarmGraphCache.Bounds(8, 64 << 20, 3_600_000),
                                settings));
        List<Double> millis = new ArrayList<>();
        try (KeyedBroadcastOperatorTestHarness<String, RoutedRequest, ControlCommand, Reply> h =
                ProcessFunctionTestHarnesses.forKeyedBroadcastProcessFunction(
                        executor, r -> r.shardKey(), Types.STRING, ControlCommand.STATE)) {
            for (int i = 0; i < routed.size(); i++) {
                int before = h.extractOutputValues().size();
                long start = System.nanoTime();
                h.setProcessingTime(System.currentTimeMillis());
                h.processElement(routed.get(i), 0);
                while (h.extractOutputValues().size() == before) {
                    h.setProcessingTime(System.currentTimeMillis()); // the clock moves on
                    // 50 µs polls: Thread.sleep would round up to a whole millisecond
                    java.util.concurrent.locks.LockSupport.parkNanos(50_000);
                }
                if (i > 0) { // the first compiles the graph
                    millis.add((System.nanoTime() - start) / 1e6);
                }
                Thread.sleep(gapMillis);
            }
        }
        millis.sort(null);
        return new Result(
                label, millis.get(millis.size() / 2), millis.get((int) (millis.size() * 0.9)));
    }

    private static List<RoutedRequest> routed(int count) throws Exception {
        SingleObjectCodec<AnalysisRequest> codec = SingleObjectCodec.of(AnalysisRequest.class);
        try (KeyedBroadcastOperatorTestHarness<String, RawRecord, ControlCommand, RoutedRequest>
                classify =
                        ProcessFunctionTestHarnesses.forKeyedBroadcastProcessFunction(
                                new DecodeAndClassifyFunction(
                                        TaskContracts.builtIn().source(),
                                        null,
                                        new io.zerolayer.operators.door.RequestAdmission(
                                                new io.zerolayer.operators.door.ReplyTopics(
                                                        "responses", List.of(), List.of())),
                                        new SafeModePolicy(SafeModePolicy.Policy.DEGRADE, Map.of()),
                                        new HotGraphSharder(1, 128, 1_000_000, 1e12)),
                                r -> String.valueOf(r.offset),
                                org.apache.flink.api.common.typeinfo.Types.STRING,
                                ControlCommand.STATE)) {
            for (int i = 0; i < count; i++) {
                RawRecord raw = new RawRecord();
                raw.topic = "requests";
                raw.value =
                        codec.encode(
                                AnalysisRequest.newBuilder()
                                        .setRequestId("q" + i)
                                        .setTenantId("bench")
                                        .setPrompt(BatchingBenchmark.ticket(i))
                                        .setSubmittedAt(Instant.now())
                                        .setAttributes(Map.of())
                                        .build());
                raw.headerKeys = new String[0];
                raw.headerValues = new byte[0][];
                classify.processElement(raw, 0);
            }
            return new ArrayList<>(classify.extractOutputValues());
        }
    }

    /** Runs this measurement alone (the JMH part of the bench takes minutes). */
    public static void main(String[] args) throws Exception {
        for (Result r : run(40, 30, 8, 5)) {
            System.out.printf(
                    java.util.Locale.ROOT,
                    "  %-38s arrival → reply p50 %6.2f ms  p90 %6.2f ms%n",
                    r.label(),
                    r.p50Millis(),
                    r.p90Millis());
        }
    }
}
