package io.zerolayer.operators.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.operators.compiler.GraphCompiler;
import io.zerolayer.operators.compiler.GraphIdentity;
import io.zerolayer.operators.compiler.RequestDecision;
import io.zerolayer.operators.contracts.DiagnosticCodes;
import io.zerolayer.operators.contracts.TaskContracts;
import io.zerolayer.operators.costs.PriceSheet;
import io.zerolayer.operators.door.ReplyTopics;
import io.zerolayer.operators.door.RequestAdmission;
import io.zerolayer.operators.execution.ExecutionSettings;
import io.zerolayer.operators.execution.WarmGraphCache;
import io.zerolayer.operators.kafka.DeadLetter;
import io.zerolayer.operators.kafka.RawRecord;
import io.zerolayer.operators.kafka.ReplyRoute;
import io.zerolayer.operators.replies.Reply;
import io.zerolayer.operators.routing.RoutedRequest;
import io.zerolayer.operators.scheduling.ExecutorSetup;
import io.zerolayer.operators.structure.StructureClassifier;
import io.zerolayer.operators.warmup.PrecompileList;
import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.ExecutionGraph;
import io.zerolayer.schemas.KernelCostRecord;
import io.zerolayer.schemas.ResponseStatus;
import io.zerolayer.schemas.ZeroLayerHeaders;
import io.zerolayer.schemas.serde.SingleObjectCodec;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedBroadcastOperatorTestHarness;
import org.apache.flink.streaming.util.ProcessFunctionTestHarnesses;
import org.junit.jupiter.api.Test;

/** Operator-harness tests of the two functions between the Kafka source and the sinks. */
class FlinkFunctionsTest {
    static final String CONTRACTS =
            io.zerolayer.operators.contracts.TaskContracts.builtIn().source();
    static final io.zerolayer.operators.contracts.SafeModePolicy DEGRADE =
            io.zerolayer.operators.contracts.SafeModePolicy.of(
                    io.zerolayer.operators.contracts.SafeModePolicy.Policy.DEGRADE,
                    Map.of("strict-tenant", "strict"));

    /** Replies to "responses" or any "replies.*" topic; "requests" and "costs" are the job's. */
    static final RequestAdmission ADMISSION =
            new RequestAdmission(
                    new ReplyTopics(
                            "responses", List.of("replies.*"), List.of("requests", "costs")));

    static KeyedBroadcastOperatorTestHarness<String, RawRecord, ControlCommand, RoutedRequest>
            classifierHarness() throws Exception {
        return classifierHarness(classifier());
    }

    /** The classifier of the test contracts: 2 slots, 25 requests/s or 0.5 slots a shard. */
    static DecodeAndClassifyFunction classifier() {
        return new DecodeAndClassifyFunction(
                CONTRACTS, null, ADMISSION, DEGRADE, new HotGraphSharder(2, 128, 25, 0.5));
    }

    /** {@code fn} keyed as the job keys it, by the tenant and request id a record claims. */
    static KeyedBroadcastOperatorTestHarness<String, RawRecord, ControlCommand, RoutedRequest>
            classifierHarness(DecodeAndClassifyFunction fn) throws Exception {
        return ProcessFunctionTestHarnesses.forKeyedBroadcastProcessFunction(
                fn, r -> RequestKeys.key(r), Types.STRING, ControlCommand.STATE);
    }

    static GraphExecutorFunction executor(int capacity) {
        return new GraphExecutorFunction(
                ExecutorSetup.of(
                        CONTRACTS,
                        "cpu-generic",
                        new WarmGraphCache.Bounds(capacity, 64 << 20, 3_600_000),
                        ONE_AT_A_TIME));
    }

    /** Requests run as they come: for tests of everything but micro-batching. */
    static final ExecutionSettings ONE_AT_A_TIME = ExecutionSettings.DEFAULTS.withBatchSize(1);

    static KeyedBroadcastOperatorTestHarness<String, RoutedRequest, ControlCommand, Reply>
            executorHarness(GraphExecutorFunction fn) throws Exception {
        return ProcessFunctionTestHarnesses.forKeyedBroadcastProcessFunction(
                fn, r -> r.shardKey(), Types.STRING, ControlCommand.STATE);
    }

    static final SingleObjectCodec<AnalysisRequest> CODEC =
            SingleObjectCodec.of(AnalysisRequest.class);

    static AnalysisRequest request(String id, String prompt) {
        return AnalysisRequest.newBuilder()
                .setRequestId(id)
                .setTenantId("t")
                .setPrompt(prompt)
                .setSubmittedAt(Instant.now())
                .setAttributes(Map.of())
                .build();
    }

    static RawRecord raw(byte[] value, String... headers) {
        RawRecord r = new RawRecord();
        r.topic = "requests";
        r.partition = 1;
        r.offset = 42;
        r.value = value;
        r.headerKeys = new String[headers.length / 2];
        r.headerValues = new byte[headers.length / 2][];
        for (int i = 0; i < headers.length; i += 2) {
            r.headerKeys[i / 2] = headers[i];
            r.headerValues[i / 2] = headers[i + 1].getBytes(StandardCharsets.UTF_8);
        }
        return r;
    }

    @Test
    void theClassifierSpreadsAGraphByTheCompilersEstimateOfItsEncoderLoad() throws Exception {
        String sentence = "The committee reviewed the annual budget and approved the new plan. ";
        String longDocument = "<task:summarize> " + sentence.repeat(400);
        String shortNote = "<task:embed> " + sentence;
        try (KeyedBroadcastOperatorTestHarness<String, RawRecord, ControlCommand, RoutedRequest> h =
                classifierHarness()) { // 2 slots, 25 requests/s or 0.5 slots of load a shard
            for (int i = 0; i < 8; i++) { // 8 of each in one burst: far below 25 requests/s
                h.processElement(raw(CODEC.encode(request("long-" + i, longDocument))), 0);
                h.processElement(raw(CODEC.encode(request("short-" + i, shortNote))), 0);
            }
            java.util.function.Function<String, java.util.Set<String>> keysOf =
                    prefix ->
                            h.extractOutputValues().stream()
                                    .filter(r -> r.request().getRequestId().startsWith(prefix))
                                    .map(r -> r.shardKey())
                                    .collect(java.util.stream.Collectors.toSet());
            // the long documents' estimated encode time adds up to more than half a slot
            assertThat(keysOf.apply("long-")).hasSize(2);
            assertThat(keysOf.apply("short-")).hasSize(1);
        }
    }

    @Test
    void everyRecordLeavesDecodeAndClassifyExactlyOnce() throws Exception {
        try (KeyedBroadcastOperatorTestHarness<String, RawRecord, ControlCommand, RoutedRequest> h =
                classifierHarness()) {
            h.processElement(
                    raw(
                            CODEC.encode(request("ok", "<task:embed> text")),
                            ZeroLayerHeaders.CORRELATION_ID,
                            "c-1",
                            ZeroLayerHeaders.REPLY_TOPIC,
                            "replies.mine"),
                    0);
            h.processElement(raw(CODEC.encode(request("bad", "<task:embedd> text"))), 0);
            h.processElement(raw(new byte[] {1, 2, 3}), 0);
            h.processElement(
                    raw(
                            "{\"requestId\":\"j\",\"tenantId\":\"t\",\"prompt\":\"<task:embed> x\"}"
                                    .getBytes(),
                            ZeroLayerHeaders.CONTENT_TYPE,
                            "application/json"),
                    0);

            List<RoutedRequest> routed = h.extractOutputValues();
            assertThat(routed)
                    .extracting(r -> r.request().getRequestId())
                    .containsExactly("ok", "j");
            RoutedRequest ok = routed.get(0);
            assertThat(ok.structureId()).hasSize(64);
            assertThat(new String(ok.route().correlationId, StandardCharsets.UTF_8))
                    .isEqualTo("c-1");
            assertThat(ok.route().replyTopic).isEqualTo("replies.mine");
            assertThat(routed.get(1).route().json).isTrue();
            assertThat(routed.get(1).structureId())
                    .isEqualTo(ok.structureId()); // same structure, JSON or Avro

            List<Reply> rejections =
                    h.getSideOutput(DecodeAndClassifyFunction.REJECTIONS).stream()
                            .map(StreamRecord::getValue)
                            .toList();
            assertThat(rejections)
                    .singleElement()
                    .satisfies(
                            r -> {
                                assertThat(r.response.getStatus())
                                        .isEqualTo(ResponseStatus.REJECTED);
                                assertThat(r.response.getDiagnostics().get(0).getHint())
                                        .contains("<task:embed>");
                            });
            List<DeadLetter> dead =
                    h.getSideOutput(DecodeAndClassifyFunction.DEAD_LETTERS).stream()
                            .map(StreamRecord::getValue)
                            .toList();
            assertThat(dead)
                    .singleElement()
                    .satisfies(
                            d -> {
                                assertThat(d.original.value).containsExactly(1, 2, 3);
                                assertThat(d.original.offset).isEqualTo(42);
                                assertThat(d.exceptionClass).endsWith("UndecodableRecordException");
                            });
        }
    }

    @Test
    void executorCompilesOncePerGraphAndAccountsForEveryNode() throws Exception {
        GraphExecutorFunction fn = executor(2);
        List<RoutedRequest> inputs = new ArrayList<>();
        try (KeyedBroadcastOperatorTestHarness<String, RawRecord, ControlCommand, RoutedRequest>
                classify = classifierHarness()) {
            String[] prompts = {
                "<task:embed> first text",
                "<task:embed> second, different text",
                "<task:summarize> One sentence. Another one.",
                "<task:embed> third"
            };
            for (int i = 0; i < prompts.length; i++) {
                classify.processElement(raw(CODEC.encode(request("r" + i, prompts[i]))), 0);
            }
            inputs.addAll(classify.extractOutputValues());
        }
        try (KeyedBroadcastOperatorTestHarness<String, RoutedRequest, ControlCommand, Reply> h =
                executorHarness(fn)) {
            for (RoutedRequest in : inputs) {
                h.processElement(in, 0);
            }
            List<Reply> replies = h.extractOutputValues();
            assertThat(replies)
                    .extracting(r -> r.response.getStatus())
                    .containsOnly(ResponseStatus.OK);
            assertThat(replies.stream().filter(r -> r.response.getTimings().getCompileMicros() > 0))
                    .hasSize(2);

            List<ExecutionGraph> graphs =
                    h.getSideOutput(GraphExecutorFunction.GRAPH_DESCRIPTORS).stream()
                            .map(StreamRecord::getValue)
                            .toList();
            assertThat(graphs)
                    .extracting(ExecutionGraph::getTask)
                    .containsExactly("embed", "summarize");
            assertThat(fn.warmGraphIds()).hasSize(2);

            List<KernelCostRecord> costs =
                    h.getSideOutput(GraphExecutorFunction.COST_RECORDS).stream()
                            .map(StreamRecord::getValue)
                            .toList();
            Map<String, Long> perRequest =
                    costs.stream()
                            .collect(
                                    Collectors.groupingBy(
                                            KernelCostRecord::getRequestId, Collectors.counting()));
            assertThat(perRequest).containsEntry("r0", 5L).containsEntry("r2", 5L).hasSize(4);
            assertThat(costs).extracting(KernelCostRecord::getRecordId).doesNotHaveDuplicates();
            KernelCostRecord encode =
                    costs.stream()
                            .filter(c -> c.getKernel().equals("encode"))
                            .findFirst()
                            .orElseThrow();
            assertThat(encode.getRecordId())
                    .hasSize(64)
                    .isEqualTo(
                            io.zerolayer.operators.execution.CostRecords.recordId(
                                    encode.getRequestId(), encode.getGraphId(), "encode"));
            // billed at the built-in price sheet, in non-overlapping integer components
            assertThat(encode.getPriceSheetVersion()).isEqualTo(PriceSheet.builtIn().version());
            assertThat(encode.getComputeNanoUsd()).isPositive();
            assertThat(encode.getPcieNanoUsd()).isZero(); // nothing crossed PCIe on a CPU
            // the encoder read its int64 inputs and wrote 384 floats per token position
            assertThat(encode.getMemoryReadBytes()).isPositive();
            assertThat(encode.getMemoryWriteBytes()).isGreaterThan(encode.getMemoryReadBytes());
            assertThat(encode.getMemoryReadBytes() + encode.getMemoryWriteBytes())
                    .isEqualTo(encode.getMemoryBytes());
            assertThat(encode.getPcieHostToDeviceBytes()).isNull();
            assertThat(encode.getPcieDeviceToHostBytes()).isNull();
            for (Reply r : replies) {
                long billed =
                        costs.stream()
                                .filter(c -> c.getRequestId().equals(r.response.getRequestId()))
                                .mapToLong(
                                        c ->
                                                c.getComputeNanoUsd()
                                                        + c.getMemoryNanoUsd()
                                                        + c.getPcieNanoUsd()
                                                        + c.getDeviceTimeNanoUsd())
                                .sum();
                assertThat(r.response.getCost().getNanoUsd()).isEqualTo(billed).isPositive();
            }
            assertThat(encode.getFlops()).isPositive();
            assertThat(encode.getPcieBytes())
                    .isNull(); // CPU: nothing crosses PCIe, so nothing is invented
            replies.forEach(r -> assertThat(r.response.getCost().getKernels()).isEqualTo(5));
        }
    }

    @Test
    void warmGraphsAreBoundedAndTheLeastRecentlyUsedIsEvicted() throws Exception {
        List<RoutedRequest> inputs = new ArrayList<>();
        try (KeyedBroadcastOperatorTestHarness<String, RawRecord, ControlCommand, RoutedRequest>
                classify = classifierHarness()) {
            String[] prompts = {
                "<task:embed> a",
                "<task:summarize> b.",
                "<task:embed> c",
                "<task:summarize> d.",
                "<task:summarize> e."
            };
            for (int i = 0; i < prompts.length; i++) {
                classify.processElement(raw(CODEC.encode(request("r" + i, prompts[i]))), 0);
            }
            inputs.addAll(classify.extractOutputValues());
        }
        GraphExecutorFunction fn = executor(1);
        try (KeyedBroadcastOperatorTestHarness<String, RoutedRequest, ControlCommand, Reply> h =
                executorHarness(fn)) {
            for (RoutedRequest in : inputs) {
                h.processElement(in, 0);
            }
            // capacity 1: embed, summarize, embed, summarize each evict the other; the last
            // summarize is warm
            List<Long> compiles =
                    h.extractOutputValues().stream()
                            .map(r -> r.response.getTimings().getCompileMicros())
                            .toList();
            assertThat(compiles.subList(0, 4)).allMatch(c -> c > 0);
            assertThat(compiles.get(4)).isZero();
            String lastGraph = h.extractOutputValues().get(4).response.getGraphId();
            assertThat(fn.warmGraphIds()).containsExactly(lastGraph);
        }
    }

    @Test
    void aRequestPastItsDeadlineIsAnsweredFailedNotDropped() throws Exception {
        AnalysisRequest late = request("late", "<task:embed> x");
        late.setDeadline(Instant.now().minusSeconds(1));
        RoutedRequest in =
                RoutedRequest.routed(
                        late,
                        new ReplyRoute(),
                        RequestDecision.of(
                                new StructureClassifier().classify(late.getPrompt()),
                                new GraphCompiler(
                                        GraphIdentity.current(
                                                TaskContracts.builtIn().version(),
                                                GraphIdentity.ANY_HARDWARE))),
                        "g#0",
                        0,
                        0);
        try (KeyedBroadcastOperatorTestHarness<String, RoutedRequest, ControlCommand, Reply> h =
                executorHarness(executor(4))) {
            h.processElement(in, 0);
            assertThat(h.extractOutputValues())
                    .singleElement()
                    .satisfies(
                            r -> {
                                assertThat(r.response.getStatus()).isEqualTo(ResponseStatus.FAILED);
                                assertThat(r.response.getDiagnostics().get(0).getCode())
                                        .isEqualTo("ZL090");
                            });
        }
    }

    @Test
    void abnormalStructureIsServedInSafeModeOrRejectedByTenantPolicy() throws Exception {
        String deep =
                "<task:summarize>"
                        + "<note>".repeat(50)
                        + "The reactor cooled overnight. Pressure held steady."
                        + "</note>".repeat(50);
        List<RoutedRequest> routed;
        List<Reply> rejections;
        try (KeyedBroadcastOperatorTestHarness<String, RawRecord, ControlCommand, RoutedRequest> h =
                classifierHarness()) {
            h.processElement(raw(CODEC.encode(request("deep", deep))), 0);
            AnalysisRequest strict = request("deep-strict", deep);
            strict.setTenantId("strict-tenant");
            h.processElement(raw(CODEC.encode(strict)), 0);
            h.processElement(
                    raw(CODEC.encode(request("blink", "<task:embed><blink>x</blink>"))), 0);
            routed = h.extractOutputValues();
            rejections =
                    h.getSideOutput(DecodeAndClassifyFunction.REJECTIONS).stream()
                            .map(StreamRecord::getValue)
                            .toList();
        }
        assertThat(routed)
                .extracting(r -> r.request().getRequestId())
                .containsExactly("deep", "blink");
        assertThat(routed).allSatisfy(r -> assertThat(r.safeMode()).isTrue());
        assertThat(routed.get(0).structureId())
                .isEqualTo(routed.get(1).structureId()); // one SAFE graph
        assertThat(routed.get(0).decision().warnings())
                .extracting(d -> d.code() + "/" + d.severity())
                .containsExactly("ZL040/warning");
        assertThat(rejections)
                .singleElement()
                .satisfies(
                        r -> {
                            assertThat(r.response.getRequestId()).isEqualTo("deep-strict");
                            assertThat(r.response.getDiagnostics())
                                    .extracting(d -> d.getCode())
                                    .containsExactly("ZL040");
                        });

        try (KeyedBroadcastOperatorTestHarness<String, RoutedRequest, ControlCommand, Reply> h =
                executorHarness(executor(4))) {
            h.processElement(routed.get(0), 0);
            assertThat(h.extractOutputValues())
                    .singleElement()
                    .satisfies(
                            r -> {
                                assertThat(r.response.getStatus()).isEqualTo(ResponseStatus.OK);
                                assertThat(r.response.getFidelity())
                                        .isEqualTo(io.zerolayer.schemas.Fidelity.SAFE_MODE);
                                assertThat(r.response.getOutput())
                                        .contains("The reactor cooled overnight.");
                                assertThat(r.response.getDiagnostics()).isNotEmpty();
                            });
            assertThat(h.getSideOutput(GraphExecutorFunction.GRAPH_DESCRIPTORS))
                    .singleElement()
                    .satisfies(
                            g ->
                                    assertThat(g.getValue().getFidelity())
                                            .isEqualTo(io.zerolayer.schemas.Fidelity.SAFE_MODE));
        }
    }

    /**
     * Per-second quotas refuse in the classifier: requests a second before the prompt is read,
     * encoder tokens once it is classified; a tenant set to backpressure is let through to wait.
     */
    @Test
    void aTenantOverItsRequestOrTokenRateIsRefusedWithZl095AndARetryAfter() throws Exception {
        String registry =
                """
                version: 1
                tenants:
                  capped: {keys: {k1: "%s"}, quotas: {requests-per-second: 2}}
                  tokens: {keys: {k1: "%s"}, quotas: {encoder-tokens-per-second: 1}}
                  patient:
                    keys: {k1: "%s"}
                    quotas: {requests-per-second: 1, over-quota: backpressure}
                """
                        .formatted("5f".repeat(32), "6a".repeat(32), "7b".repeat(32));
        List<RoutedRequest> routed;
        List<Reply> refused;
        try (var h = classifierHarness(classifier().withTenants(null, registry))) {
            for (String tenant : List.of("capped", "tokens", "patient")) {
                for (int i = 0; i < 5; i++) {
                    AnalysisRequest r =
                            request(tenant + "-" + i, "<task:summarize><ticket>Late.</ticket>");
                    r.setTenantId(tenant);
                    h.processElement(raw(CODEC.encode(r)), 0);
                }
            }
            routed = h.extractOutputValues();
            refused =
                    h.getSideOutput(DecodeAndClassifyFunction.REJECTIONS).stream()
                            .map(StreamRecord::getValue)
                            .toList();
        }
        assertThat(routed)
                .extracting(r -> r.request().getRequestId())
                .containsExactlyInAnyOrder(
                        "capped-0",
                        "capped-1",
                        "tokens-0",
                        "patient-0",
                        "patient-1",
                        "patient-2",
                        "patient-3",
                        "patient-4");
        assertThat(refused)
                .extracting(r -> r.response.getRequestId())
                .containsExactlyInAnyOrder(
                        "capped-2",
                        "capped-3",
                        "capped-4",
                        "tokens-1",
                        "tokens-2",
                        "tokens-3",
                        "tokens-4");
        assertThat(refused)
                .allSatisfy(
                        r -> {
                            assertThat(r.response.getStatus()).isEqualTo(ResponseStatus.REJECTED);
                            var d = r.response.getDiagnostics().get(0);
                            assertThat(d.getCode()).isEqualTo(DiagnosticCodes.OVER_QUOTA);
                            assertThat(d.getHint()).matches("retry-after-ms=\\d+.*");
                        });
        assertThat(refused.stream().map(r -> r.response.getDiagnostics().get(0).getMessage()))
                .anySatisfy(m -> assertThat(m).contains("over its quota of 2 requests a second"))
                .anySatisfy(
                        m -> assertThat(m).contains("over its encoder-token quota (1 a second"));
    }

    /** The tenant registry's safe-mode comes before the settings' policy of the same tenant. */
    @Test
    void theTenantRegistrysSafeModeComesBeforeTheSettings() throws Exception {
        String deep = "<task:summarize>" + "<note>".repeat(50) + "Text." + "</note>".repeat(50);
        String key = "5f".repeat(32);
        String registry =
                """
                version: 1
                tenants:
                  strict-tenant: {keys: {k1: "%s"}, safe-mode: degrade}
                  t: {keys: {k1: "%s"}, safe-mode: strict}
                  other: {keys: {k1: "%s"}}
                """
                        .formatted(key, "6a".repeat(32), "7b".repeat(32));
        List<String> served;
        List<String> refused;
        try (var h = classifierHarness(classifier().withTenants(null, registry))) {
            for (String tenant : List.of("strict-tenant", "t", "other")) {
                AnalysisRequest r = request(tenant + "-deep", deep);
                r.setTenantId(tenant);
                h.processElement(raw(CODEC.encode(r)), 0);
            }
            served = h.extractOutputValues().stream().map(r -> r.request().getTenantId()).toList();
            refused =
                    h.getSideOutput(DecodeAndClassifyFunction.REJECTIONS).stream()
                            .map(r -> r.getValue().response.getTenantId())
                            .toList();
        }
        // the settings degrade all but strict-tenant; the registry turns both of those around,
        // and leaves a tenant it says nothing of to the settings
        assertThat(served).containsExactlyInAnyOrder("strict-tenant", "other");
        assertThat(refused).containsExactly("t");
    }

    @Test
    void controlCommandsClearTheCacheAndReloadContractsWithoutARestart() throws Exception {
        String digestContracts =
                CONTRACTS
                        .replace("version: 1", "version: 2")
                        .replace("  extract:\n", "  digest: {decoder: summarize}\n  extract:\n");
        assertThat(digestContracts).contains("digest");
        try (KeyedBroadcastOperatorTestHarness<String, RawRecord, ControlCommand, RoutedRequest>
                        classify = classifierHarness();
                KeyedBroadcastOperatorTestHarness<String, RoutedRequest, ControlCommand, Reply> h =
                        executorHarness(executor(8))) {
            classify.processElement(raw(CODEC.encode(request("a", "<task:embed> one"))), 0);
            classify.processElement(
                    raw(CODEC.encode(request("digest-before", "<task:digest> text."))), 0);
            h.processElement(classify.extractOutputValues().get(0), 0);
            h.processBroadcastElement(new ControlCommand(ControlCommand.CLEAR_CACHE, null), 0);
            h.processElement(classify.extractOutputValues().get(0), 0);
            List<Reply> replies = h.extractOutputValues();
            assertThat(replies)
                    .allSatisfy(
                            r ->
                                    assertThat(r.response.getTimings().getCompileMicros())
                                            .isPositive());

            // a broken tasks.yaml is ignored: the contracts in force stay
            classify.processBroadcastElement(
                    new ControlCommand(ControlCommand.RELOAD_CONTRACTS, "tasks: ["), 0);
            // so is one whose examples are wrong: a label with one example
            classify.processBroadcastElement(
                    new ControlCommand(
                            ControlCommand.RELOAD_CONTRACTS,
                            digestContracts.replace(
                                    "  digest: {decoder: summarize}\n",
                                    "  digest:\n    decoder: classify\n"
                                            + "    examples: {a: [one, two], b: [three]}\n")),
                    0);
            classify.processElement(
                    raw(CODEC.encode(request("digest-still-unknown", "<task:digest> text."))), 0);
            classify.processBroadcastElement(
                    new ControlCommand(ControlCommand.RELOAD_CONTRACTS, digestContracts), 0);
            h.processBroadcastElement(
                    new ControlCommand(ControlCommand.RELOAD_CONTRACTS, digestContracts), 0);
            classify.processElement(
                    raw(
                            CODEC.encode(
                                    request(
                                            "digest-after",
                                            "<task:digest> The pump failed. It was replaced."))),
                    0);

            List<String> rejected =
                    classify.getSideOutput(DecodeAndClassifyFunction.REJECTIONS).stream()
                            .map(r -> r.getValue().response.getRequestId())
                            .toList();
            assertThat(rejected).containsExactly("digest-before", "digest-still-unknown");
            RoutedRequest digest = classify.extractOutputValues().get(1);
            assertThat(digest.request().getRequestId()).isEqualTo("digest-after");
            h.processElement(digest, 0);
            Reply answered = h.extractOutputValues().get(2);
            assertThat(answered.response.getStatus()).isEqualTo(ResponseStatus.OK);
            assertThat(answered.response.getTask()).isEqualTo("digest");
            assertThat(answered.response.getOutput()).contains("The pump failed.");
        }
    }

    @Test
    void controlRecordsParseAndBadOnesAreMarkedInvalid() {
        assertThat(ControlCommand.parse("{\"command\":\"clear-cache\"}".getBytes()).command)
                .isEqualTo("clear-cache");
        ControlCommand reload =
                ControlCommand.parse(
                        new ControlCommand(ControlCommand.RELOAD_CONTRACTS, "version: 3").toJson());
        assertThat(reload.contracts).isEqualTo("version: 3");
        assertThat(ControlCommand.parse("{\"command\":\"reboot\"}".getBytes()).command)
                .startsWith("invalid: unknown command 'reboot'");
        assertThat(ControlCommand.parse("nope".getBytes()).command).startsWith("invalid: not JSON");
    }

    @Test
    void precompiledStructuresAreWarmForTheirFirstRequest() throws Exception {
        String prompt = "<task:embed><note>Valve 7 was replaced.</note>";
        PrecompileList list =
                new PrecompileList(
                        List.of(
                                new PrecompileList.Structure("valves", prompt),
                                new PrecompileList.Structure("broken", "<task:nope> x")));
        GraphExecutorFunction fn =
                new GraphExecutorFunction(
                        ExecutorSetup.of(
                                        CONTRACTS,
                                        "cpu-generic",
                                        new WarmGraphCache.Bounds(8, 64 << 20, 3_600_000),
                                        ONE_AT_A_TIME)
                                .withPrecompile(list));
        try (KeyedBroadcastOperatorTestHarness<String, RawRecord, ControlCommand, RoutedRequest>
                        classify = classifierHarness();
                KeyedBroadcastOperatorTestHarness<String, RoutedRequest, ControlCommand, Reply> h =
                        executorHarness(fn)) {
            // a one-slot executor owns every structure; the broken one is skipped
            assertThat(fn.warmGraphIds()).hasSize(1);
            classify.processElement(
                    raw(
                            CODEC.encode(
                                    request(
                                            "first",
                                            "<task:embed><note>Pump 3 was inspected.</note>"))),
                    0);
            h.processElement(classify.extractOutputValues().get(0), 0);
            Reply reply = h.extractOutputValues().get(0);
            assertThat(reply.response.getTimings().getCompileMicros()).isZero();
            assertThat(fn.warmGraphIds()).containsExactly(reply.response.getGraphId());
        }
    }
}
