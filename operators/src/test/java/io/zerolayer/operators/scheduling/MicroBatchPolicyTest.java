package io.zerolayer.operators.scheduling;

import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.operators.execution.ComplianceMode;
import io.zerolayer.operators.execution.ExecutionSettings;
import io.zerolayer.operators.kafka.ReplyRoute;
import io.zerolayer.operators.routing.RoutedRequest;
import io.zerolayer.schemas.AnalysisRequest;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** When a key's requests run, decided alone: no state, no Flink, no graphs to run. */
class MicroBatchPolicyTest {
    private final MicroBatchPolicy policy =
            new MicroBatchPolicy(
                    ExecutionSettings.DEFAULTS.withCompliance(
                            ComplianceMode.STANDARD, Map.of("bank", ComplianceMode.STRICT)));

    private static AnalysisRequest request(String tenant, Map<String, String> attributes) {
        return AnalysisRequest.newBuilder()
                .setRequestId("r")
                .setTenantId(tenant)
                .setPrompt("<task:embed> x")
                .setSubmittedAt(Instant.EPOCH)
                .setAttributes(attributes)
                .build();
    }

    private final AnalysisRequest shop = request("shop", Map.of());
    private final AnalysisRequest bank = request("bank", Map.of());

    @Test
    void anArrivingRequestRunsAtOnceWhenWaitingWouldOnlyIdleTheSlot() {
        // nothing queued and the inference thread idle, or a batch size of one
        assertThat(policy.onArrival(shop, 8, 0, false, true))
                .isEqualTo(MicroBatchPolicy.Arrival.RUN_NOW);
        assertThat(policy.onArrival(shop, 1, 0, false, false))
                .isEqualTo(MicroBatchPolicy.Arrival.RUN_NOW);
        // strict compliance runs alone even with companions waiting
        assertThat(policy.onArrival(bank, 8, 3, false, false))
                .isEqualTo(MicroBatchPolicy.Arrival.RUN_NOW);
    }

    @Test
    void otherwiseItQueuesUntilTheBatchIsFullOrItsDelayOrTheRunningBatchIsDone() {
        assertThat(policy.onArrival(shop, 8, 0, false, false))
                .isEqualTo(MicroBatchPolicy.Arrival.QUEUE_UNTIL_DELAY);
        assertThat(policy.onArrival(shop, 8, 7, false, false))
                .isEqualTo(MicroBatchPolicy.Arrival.QUEUE_AND_START);
        assertThat(policy.onArrival(shop, 8, 2, false, true))
                .as("companions waiting, the slot idles: start now")
                .isEqualTo(MicroBatchPolicy.Arrival.QUEUE_AND_START);
        assertThat(policy.onArrival(bank, 8, 0, true, false))
                .as("even strict waits behind its key's running batch")
                .isEqualTo(MicroBatchPolicy.Arrival.QUEUE_BEHIND_RUNNING);
        int full = MicroBatchPolicy.QUEUED_BATCHES_PER_KEY * 8;
        assertThat(policy.onArrival(shop, 8, full - 2, true, false))
                .isEqualTo(MicroBatchPolicy.Arrival.QUEUE_BEHIND_RUNNING);
        assertThat(policy.onArrival(shop, 8, full - 1, true, false))
                .isEqualTo(MicroBatchPolicy.Arrival.QUEUE_FULL);
    }

    @Test
    void theTenantRegistrysLevelComesFirstAndARequestCannotGoBelowIt() {
        MicroBatchPolicy registered =
                new MicroBatchPolicy(
                        ExecutionSettings.DEFAULTS.withCompliance(
                                ComplianceMode.STANDARD, Map.of("bank", ComplianceMode.STRICT)),
                        tenant -> tenant.equals("shop") ? ComplianceMode.STRICT : null);
        assertThat(registered.strict(shop)).isTrue();
        assertThat(registered.strict(request("shop", Map.of("compliance", "standard")))).isTrue();
        assertThat(registered.strict(bank)).as("the settings' level, unregistered").isTrue();
        assertThat(registered.compliance(request("other", Map.of())))
                .isEqualTo(ComplianceMode.STANDARD);
    }

    @Test
    void theNextBatchTakesAtMostItsSizeAndAtLeastOne() {
        assertThat(MicroBatchPolicy.take(10, 4)).isEqualTo(4);
        assertThat(MicroBatchPolicy.take(3, 4)).isEqualTo(3);
        assertThat(MicroBatchPolicy.take(3, null)).isEqualTo(3);
        assertThat(MicroBatchPolicy.take(3, 0)).isEqualTo(1);
    }

    @Test
    void complianceDecidesRunModes() {
        assertThat(policy.modeOf(bank, true).pruneOptional()).as("strict never prunes").isFalse();
        assertThat(policy.modeOf(bank, true).compliance())
                .containsExactlyInAnyOrder("redact", "audit");
        assertThat(policy.modeOf(shop, true).pruneOptional()).isTrue();
        assertThat(policy.modeOf(shop, false).compliance()).isEmpty();
        assertThat(policy.modeOf(request("shop", Map.of("redact", "TRUE")), false).compliance())
                .containsExactly("redact");
        assertThat(policy.runsAlone(bank)).isTrue();
        assertThat(policy.runsAlone(shop)).isFalse();
        // level 2: both compliance nodes on every response, still batched and still pruning
        AnalysisRequest audited = request("shop", Map.of("compliance", "audited"));
        assertThat(policy.modeOf(audited, true).compliance())
                .containsExactlyInAnyOrder("redact", "audit");
        assertThat(policy.modeOf(audited, true).pruneOptional()).isTrue();
        assertThat(policy.runsAlone(audited)).isFalse();
        assertThat(
                        new MicroBatchPolicy(ExecutionSettings.DEFAULTS.withBatchSize(1))
                                .runsAlone(shop))
                .isTrue();
    }

    private static RoutedRequest arrived(long atMillis, long estimateMillis, Instant deadline) {
        AnalysisRequest r = request("shop", Map.of());
        r.setDeadline(deadline);
        return RoutedRequest.routed(
                r,
                new ReplyRoute(),
                new io.zerolayer.operators.compiler.RequestDecision(
                        "g", "s", "v", null, null, java.util.List.of(), estimateMillis),
                "k",
                0,
                atMillis);
    }

    @Test
    void aBatchIsDueAtItsEarliestRequestsDeadlineOrAtStretchTimesItsWorkAfterArrival() {
        // a ticket arriving after a paper started waiting is still due first ...
        long paper = MicroBatchPolicy.due(java.util.List.of(arrived(1_000, 800, null)));
        long ticket = MicroBatchPolicy.due(java.util.List.of(arrived(1_300, 30, null)));
        assertThat(paper).isEqualTo(1_000 + MicroBatchPolicy.STRETCH * 800);
        assertThat(ticket).isLessThan(paper);
        // ... but not one arriving once the paper has waited its stretch
        assertThat(MicroBatchPolicy.due(java.util.List.of(arrived(paper, 30, null))))
                .isGreaterThan(paper);
        // an explicit deadline earlier than that is what counts; a batch is due with its first
        long deadline =
                MicroBatchPolicy.due(
                        java.util.List.of(
                                arrived(1_000, 800, null),
                                arrived(1_000, 800, Instant.ofEpochMilli(1_100))));
        assertThat(deadline).isEqualTo(1_100);
        // an unknown estimate counts as 1 ms
        assertThat(MicroBatchPolicy.due(java.util.List.of(arrived(0, 0, null))))
                .isEqualTo(MicroBatchPolicy.STRETCH);
    }
}
