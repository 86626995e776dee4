package io.zerolayer.operators.flink;

import static io.zerolayer.operators.flink.FlinkFunctionsTest.CONTRACTS;
import static io.zerolayer.operators.flink.FlinkFunctionsTest.classifierHarness;
import static io.zerolayer.operators.flink.FlinkFunctionsTest.executorHarness;
import static io.zerolayer.operators.flink.FlinkFunctionsTest.raw;
import static io.zerolayer.operators.flink.FlinkFunctionsTest.request;
import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.operators.contracts.DiagnosticCodes;
import io.zerolayer.operators.execution.ExecutionSettings;
import io.zerolayer.operators.execution.WarmGraphCache;
import io.zerolayer.operators.kafka.RawRecord;
import io.zerolayer.operators.replies.Reply;
import io.zerolayer.operators.routing.RoutedRequest;
import io.zerolayer.operators.scheduling.ExecutorSetup;
import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.Fidelity;
import io.zerolayer.schemas.KernelCostRecord;
import io.zerolayer.schemas.ResponseStatus;
import io.zerolayer.schemas.audit.AuditChainHash;
import io.zerolayer.schemas.serde.SingleObjectCodec;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.co.CoBroadcastWithKeyedOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedBroadcastOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * The executor's micro-batches on Flink's operator harness: batches close by size and by timer,
 * queued requests survive a snapshot and restore and are answered exactly once, and a failing main
 * path is answered by the fallback (REDUCED) or, when that fails too, FAILED.
 */
class MicroBatchingTest {
    private static final SingleObjectCodec<AnalysisRequest> CODEC =
            SingleObjectCodec.of(AnalysisRequest.class);

    static GraphExecutorFunction executor(ExecutionSettings settings) {
        return new GraphExecutorFunction(setup(settings));
    }

    static ExecutorSetup setup(ExecutionSettings settings) {
        return ExecutorSetup.of(
                CONTRACTS,
                "cpu-generic",
                new WarmGraphCache.Bounds(8, 64 << 20, 3_600_000),
                settings);
    }

    /** Requests of one structure (same graph, same key), classified by the real classifier. */
    static List<RoutedRequest> tickets(int count) throws Exception {
        List<RoutedRequest> out = new ArrayList<>();
        try (KeyedBroadcastOperatorTestHarness<String, RawRecord, ControlCommand, RoutedRequest>
                classify = classifierHarness()) {
            for (int i = 0; i < count; i++) {
                String prompt =
                        "<task:summarize><ticket>Ticket "
                                + i
                                + ": the parcel arrived late. The box was damaged. I want a"
                                + " refund.</ticket>";
                classify.processElement(raw(CODEC.encode(request("t" + i, prompt))), 0);
            }
            out.addAll(classify.extractOutputValues());
        }
        assertThat(out).extracting(r -> r.shardKey()).containsOnly(out.get(0).shardKey());
        return out;
    }

    /** A harness not yet opened, so a snapshot can be restored into it. */
    private static KeyedBroadcastOperatorTestHarness<String, RoutedRequest, ControlCommand, Reply>
            restoredFrom(OperatorSubtaskState snapshot, ExecutionSettings settings)
                    throws Exception {
        return restoredFrom(snapshot, executor(settings));
    }

    static KeyedBroadcastOperatorTestHarness<String, RoutedRequest, ControlCommand, Reply>
            restoredFrom(OperatorSubtaskState snapshot, GraphExecutorFunction executor)
                    throws Exception {
        var h =
                new KeyedBroadcastOperatorTestHarness<String, RoutedRequest, ControlCommand, Reply>(
                        new CoBroadcastWithKeyedOperator<>(executor, List.of(ControlCommand.STATE)),
                        r -> r.shardKey(),
                        Types.STRING,
                        1, // as ProcessFunctionTestHarnesses builds it: one key group
                        1,
                        0);
        h.setup();
        h.initializeState(snapshot);
        h.open();
        return h;
    }

    static List<String> answered(
            KeyedBroadcastOperatorTestHarness<String, RoutedRequest, ControlCommand, Reply> h) {
        return h.extractOutputValues().stream().map(r -> r.response.getRequestId()).toList();
    }

    static List<KernelCostRecord> costs(
            KeyedBroadcastOperatorTestHarness<String, RoutedRequest, ControlCommand, Reply> h) {
        return h.getSideOutput(GraphExecutorFunction.COST_RECORDS).stream()
                .map(StreamRecord::getValue)
                .toList();
    }

    @Test
    void aBatchRunsWhenItHoldsTheBatchSize() throws Exception {
        List<RoutedRequest> in = tickets(3);
        ExecutionSettings settings =
                new ExecutionSettings(3, 60_000, 0, 0, false); // the timer never fires here
        try (var h = executorHarness(executor(settings))) {
            h.processElement(in.get(0), 0);
            h.processElement(in.get(1), 0);
            assertThat(h.extractOutputValues()).isEmpty();
            h.processElement(in.get(2), 0);
            assertThat(answered(h)).containsExactly("t0", "t1", "t2");
            assertThat(h.extractOutputValues())
                    .allSatisfy(
                            r -> {
                                assertThat(r.response.getStatus()).isEqualTo(ResponseStatus.OK);
                                assertThat(r.response.getFidelity()).isEqualTo(Fidelity.FULL);
                            });
            // one encoder pass for the three: their encode records share its start
            assertThat(
                            costs(h).stream()
                                    .filter(c -> c.getKernel().equals("encode"))
                                    .map(KernelCostRecord::getStartedAt)
                                    .distinct())
                    .hasSize(1);
            assertThat(h.numProcessingTimeTimers()).isZero();
        }
    }

    @Test
    void aBatchThatDoesNotFillRunsWhenItsQueueDelayIsUp() throws Exception {
        List<RoutedRequest> in = tickets(2);
        try (var h = executorHarness(executor(new ExecutionSettings(8, 5, 0, 0, false)))) {
            h.setProcessingTime(1_000);
            h.processElement(in.get(0), 0);
            h.setProcessingTime(1_003);
            h.processElement(in.get(1), 0);
            assertThat(h.extractOutputValues()).isEmpty();
            assertThat(h.numProcessingTimeTimers()).isEqualTo(1); // one timer per batch
            h.setProcessingTime(1_004);
            assertThat(h.extractOutputValues()).isEmpty();
            h.setProcessingTime(1_005); // 5 ms after the first request
            assertThat(answered(h)).containsExactly("t0", "t1");
        }
    }

    @Test
    void queuedRequestsSurviveASnapshotAndAreAnsweredExactlyOnce() throws Exception {
        List<RoutedRequest> in = tickets(3);
        ExecutionSettings settings = new ExecutionSettings(3, 50, 0, 0, false);
        OperatorSubtaskState snapshot;
        try (var h = executorHarness(executor(settings))) {
            h.setProcessingTime(0);
            h.processElement(in.get(0), 0);
            h.processElement(in.get(1), 0);
            snapshot = h.snapshot(1, 10);
            assertThat(h.extractOutputValues()).isEmpty();
        } // the job fails here: t0 and t1 were neither answered nor lost

        try (var restored = restoredFrom(snapshot, settings)) {
            restored.setProcessingTime(0);
            restored.processElement(in.get(2), 0);
            assertThat(answered(restored)).containsExactly("t0", "t1", "t2");
            restored.setProcessingTime(1_000); // the restored timer finds nothing left to run
            assertThat(answered(restored)).containsExactly("t0", "t1", "t2");
        }

        // restored without more input: the checkpointed timer runs the batch
        try (var restored = restoredFrom(snapshot, settings)) {
            restored.setProcessingTime(50);
            assertThat(answered(restored)).containsExactly("t0", "t1");
        }
    }

    @Test
    void aFailingMainPathIsAnsweredByTheFallbackWithReducedFidelity() throws Exception {
        List<RoutedRequest> in = tickets(4);
        ExecutionSettings settings =
                new ExecutionSettings(2, 60_000, 0, 2, false); // every 2nd batch fails
        try (var h = executorHarness(executor(settings))) {
            in.forEach(
                    r -> {
                        try {
                            h.processElement(r, 0);
                        } catch (Exception e) {
                            throw new AssertionError(e);
                        }
                    });
            List<Reply> replies = h.extractOutputValues();
            assertThat(replies)
                    .extracting(r -> r.response.getRequestId())
                    .containsExactly("t0", "t1", "t2", "t3");
            assertThat(replies).allMatch(r -> r.response.getStatus() == ResponseStatus.OK);
            assertThat(replies.subList(0, 2))
                    .allMatch(r -> r.response.getFidelity() == Fidelity.FULL);
            assertThat(replies.subList(2, 4))
                    .allSatisfy(
                            r -> {
                                assertThat(r.response.getFidelity()).isEqualTo(Fidelity.REDUCED);
                                assertThat(r.response.getDiagnostics())
                                        .anySatisfy(
                                                d -> {
                                                    assertThat(d.getCode())
                                                            .isEqualTo(
                                                                    DiagnosticCodes.FALLBACK_USED);
                                                    assertThat(d.getMessage())
                                                            .contains("injected fault")
                                                            .contains("minilm-l6-v2-int8");
                                                });
                                // the fallback's answer is still computed from the text
                                assertThat(r.response.getOutput()).contains("refund");
                            });
            assertThat(
                            costs(h).stream()
                                    .filter(
                                            c ->
                                                    c.getKernel().equals("encode")
                                                            && List.of("t2", "t3")
                                                                    .contains(c.getRequestId())))
                    .hasSize(2)
                    .allSatisfy(c -> assertThat(c.getModel()).isEqualTo("minilm-l6-v2-int8"));
        }
    }

    @Test
    void whenTheFallbackFailsTooEveryRequestIsAnsweredFailed() throws Exception {
        List<RoutedRequest> in = tickets(2);
        try (var h = executorHarness(executor(new ExecutionSettings(2, 60_000, 0, 1, true)))) {
            h.processElement(in.get(0), 0);
            h.processElement(in.get(1), 0);
            List<Reply> replies = h.extractOutputValues();
            assertThat(replies).hasSize(2);
            assertThat(replies)
                    .allSatisfy(
                            r -> {
                                assertThat(r.response.getStatus()).isEqualTo(ResponseStatus.FAILED);
                                assertThat(r.response.getDiagnostics().get(0).getCode())
                                        .isEqualTo(DiagnosticCodes.EXECUTION_FAILED);
                                assertThat(r.response.getDiagnostics().get(0).getMessage())
                                        .contains("main path")
                                        .contains("fallback");
                            });
        }
    }

    @Test
    void aMainPathThatOverrunsItsTimeIsCancelledAndAnsweredByTheFallback() throws Exception {
        List<RoutedRequest> in = new ArrayList<>();
        try (KeyedBroadcastOperatorTestHarness<String, RawRecord, ControlCommand, RoutedRequest>
                classify = classifierHarness()) {
            // 400 sentences: hundreds of milliseconds of fp32 encoding on one thread
            String doc =
                    "The customer reported a delayed parcel and asked for a refund. ".repeat(400);
            classify.processElement(
                    raw(CODEC.encode(request("long", "<task:embed><note>" + doc + "</note>"))), 0);
            in.addAll(classify.extractOutputValues());
        }
        try (var h = executorHarness(executor(new ExecutionSettings(1, 5, 1, 0, false)))) {
            h.processElement(in.get(0), 0);
            Reply reply = h.extractOutputValues().get(0);
            assertThat(reply.response.getStatus()).isEqualTo(ResponseStatus.OK);
            assertThat(reply.response.getFidelity()).isEqualTo(Fidelity.REDUCED);
            assertThat(reply.response.getDiagnostics())
                    .anySatisfy(d -> assertThat(d.getMessage()).contains("overran"));
        }
    }

    private static List<RoutedRequest> routed(String tenant, String... prompts) throws Exception {
        List<RoutedRequest> out = new ArrayList<>();
        try (KeyedBroadcastOperatorTestHarness<String, RawRecord, ControlCommand, RoutedRequest>
                classify = classifierHarness()) {
            for (int i = 0; i < prompts.length; i++) {
                AnalysisRequest r = request(tenant + "-" + i, prompts[i]);
                r.setTenantId(tenant);
                classify.processElement(raw(CODEC.encode(r)), 0);
            }
            out.addAll(classify.extractOutputValues());
        }
        return out;
    }

    private static final String CLASSIFY =
            "<task:classify><output_format:json><labels>refund, delivery, login</labels><ticket>The"
                    + " parcel came two weeks late. I want my money back.</ticket>";

    @Test
    void underMemoryPressureOptionalNodesArePrunedAndTheAnswerSaysSo() throws Exception {
        RoutedRequest in = routed("t", CLASSIFY).get(0);
        ExecutionSettings one = ExecutionSettings.DEFAULTS.withBatchSize(1);
        try (var h = executorHarness(executor(one.withMemory(0.15, 0.05)))) {
            h.processElement(in, 0);
            Reply reply = h.extractOutputValues().get(0);
            assertThat(reply.response.getFidelity()).isEqualTo(Fidelity.REDUCED);
            assertThat(reply.response.getDiagnostics())
                    .anySatisfy(
                            d -> {
                                assertThat(d.getCode()).isEqualTo(DiagnosticCodes.NODES_PRUNED);
                                assertThat(d.getMessage()).contains("evidence").contains("5%");
                            });
            assertThat(reply.response.getOutput()).contains("\"label\"").doesNotContain("evidence");
        }
        try (var h = executorHarness(executor(one.withMemory(0.15, 0.60)))) {
            h.processElement(in, 0);
            Reply reply = h.extractOutputValues().get(0);
            assertThat(reply.response.getFidelity()).isEqualTo(Fidelity.FULL);
            assertThat(reply.response.getOutput()).contains("\"evidence\"");
            assertThat(costs(h).stream().filter(c -> c.getNodeId().equals("evidence")).count())
                    .isEqualTo(1);
        }
    }

    @Test
    void strictComplianceRunsAloneWithEveryComplianceNodeAndGivesBitIdenticalAnswers()
            throws Exception {
        String ticket =
                "<task:summarize><ticket>Ticket 7: the parcel arrived late. Mail me at"
                        + " ann@example.com or call 030 1234567. I want a refund.</ticket>";
        ExecutionSettings settings =
                new ExecutionSettings(4, 60_000, 0, 0, false)
                        .withCompliance(
                                io.zerolayer.operators.execution.ComplianceMode.STANDARD,
                                java.util.Map.of(
                                        "bank",
                                        io.zerolayer.operators.execution.ComplianceMode.STRICT));
        List<String> outputs = new ArrayList<>();
        for (int companions : new int[] {0, 2}) {
            List<RoutedRequest> others = tickets(companions + 1).subList(0, companions);
            RoutedRequest strict = routed("bank", ticket).get(0);
            try (var h = executorHarness(executor(settings))) {
                for (RoutedRequest o : others) {
                    h.processElement(o, 0); // queued, batch of 4 not yet full
                }
                h.processElement(strict, 0);
                Reply reply =
                        h.extractOutputValues().stream()
                                .filter(r -> r.response.getTenantId().equals("bank"))
                                .findFirst()
                                .orElseThrow(); // answered at once, not queued
                assertThat(reply.response.getOutput())
                        .contains("[EMAIL]")
                        .contains("[PHONE]")
                        .doesNotContain("ann@example.com");
                assertThat(reply.response.getAttributes())
                        .containsKeys(
                                "audit.prompt-sha256", "audit.output-sha256", "audit.graph-id")
                        .containsEntry("redacted.email", "1");
                outputs.add(reply.response.getOutput());
                // the standard requests stayed queued: no compliance node ran for them
                assertThat(h.extractOutputValues()).hasSize(1);
                // level 3: the reply is an entry of the tenant's audit chain, not yet linked
                assertThat(h.getSideOutput(GraphExecutorFunction.AUDIT_ENTRIES))
                        .extracting(StreamRecord::getValue)
                        .singleElement()
                        .satisfies(
                                e -> {
                                    assertThat(e.getTenantId()).isEqualTo("bank");
                                    assertThat(e.getRequestId())
                                            .isEqualTo(reply.response.getRequestId());
                                    assertThat(e.getPromptSha256())
                                            .isEqualTo(AuditChainHash.sha256Hex(ticket))
                                            .isEqualTo(
                                                    reply.response
                                                            .getAttributes()
                                                            .get("audit.prompt-sha256"));
                                    assertThat(e.getOutputSha256())
                                            .isEqualTo(
                                                    AuditChainHash.sha256Hex(
                                                            reply.response.getOutput()));
                                    assertThat(e.getGraphId())
                                            .isEqualTo(reply.response.getGraphId());
                                    assertThat(e.getStructureId())
                                            .as("what the prompt looked like, beside the plan")
                                            .isEqualTo(strict.structureId())
                                            .isNotEqualTo(e.getGraphId());
                                    assertThat(e.getModel())
                                            .isEqualTo(
                                                    reply.response
                                                            .getAttributes()
                                                            .get("audit.model"))
                                            .contains("@");
                                    assertThat(e.getSequence()).isZero();
                                });
            }
        }
        assertThat(outputs.get(1)).isEqualTo(outputs.get(0));
    }
}
