package io.zerolayer.operators.scheduling;

import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.operators.compiler.RequestDecision;
import io.zerolayer.operators.contracts.DiagnosticCodes;
import io.zerolayer.operators.kafka.ReplyRoute;
import io.zerolayer.operators.prompt.PromptDiagnostic;
import io.zerolayer.operators.routing.RoutedRequest;
import io.zerolayer.operators.tenants.TenantQuotas;
import io.zerolayer.schemas.AnalysisRequest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TenantSharesTest {
    static final TenantQuotas FOUR = new TenantQuotas(4, 0, 0, TenantQuotas.OverQuota.REJECT);
    static final TenantQuotas FOUR_THEN_WAIT =
            new TenantQuotas(4, 0, 0, TenantQuotas.OverQuota.BACKPRESSURE);

    @Test
    void aTenantOverItsInFlightQuotaIsRejectedWithWhenToRetryUntilOneIsAnswered() {
        TenantShares shares = new TenantShares(t -> t.equals("flood") ? FOUR : FOUR_THEN_WAIT);
        for (int i = 0; i < 4; i++) {
            assertThat(shares.admit(request("flood", 0, 30), 0)).isNull();
        }
        PromptDiagnostic refused = shares.admit(request("flood", 0, 30), 0);
        assertThat(refused.code()).isEqualTo(DiagnosticCodes.OVER_QUOTA);
        assertThat(refused.message()).contains("holds 4 requests").contains("retry after 30 ms");
        assertThat(refused.hint()).isEqualTo("retry-after-ms=30");

        shares.answered("flood");
        assertThat(shares.admit(request("flood", 0, 30), 0)).isNull();
        // a tenant set to backpressure waits its turn instead
        for (int i = 0; i < 6; i++) {
            assertThat(shares.admit(request("patient", 0, 30), 0)).isNull();
        }
    }

    @Test
    void aTenantBeyondItsShareIsDueLaterWhileOneWithinItIsDueAsIfAlone() {
        TenantShares shares = new TenantShares(t -> TenantQuotas.NONE);
        long now = 1_000_000;
        // the flood: 20 batches of 4 requests of 30 ms each at once, two tenants in the slot
        RoutedRequest quietFirst = request("quiet", now, 30);
        shares.admit(quietFirst, now);
        List<Long> floodDue = new ArrayList<>();
        for (int b = 0; b < 20; b++) {
            List<RoutedRequest> batch = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                RoutedRequest r = request("flood", now, 30);
                shares.admit(r, now);
                batch.add(r);
            }
            floodDue.add(shares.assignDue(batch, now));
        }
        long quietDue = shares.assignDue(List.of(request("quiet", now + 10, 30)), now + 10);

        assertThat(quietDue).as("as if alone").isEqualTo(now + 10 + MicroBatchPolicy.STRETCH * 30);
        assertThat(floodDue).isSorted();
        assertThat(floodDue.get(0)).isEqualTo(now + MicroBatchPolicy.STRETCH * 30);
        assertThat(floodDue.get(19))
                .as("19 batches of 4 × 30 ms × 2 tenants ahead")
                .isEqualTo(now + 19 * 4 * 30 * 2 + MicroBatchPolicy.STRETCH * 30);
        assertThat(floodDue.stream().filter(d -> d < quietDue).count())
                .as("flood batches that run before the quiet request")
                .isLessThanOrEqualTo(2);
        // a preview moves no clock
        assertThat(shares.previewDue(List.of(request("flood", now, 30)), now))
                .isEqualTo(shares.previewDue(List.of(request("flood", now, 30)), now));
    }

    @Test
    void aDeadlineCannotPullATenantBeforeItsClock() {
        TenantShares shares = new TenantShares(t -> TenantQuotas.NONE);
        long now = 1_000_000;
        shares.admit(request("flood", now, 100), now);
        shares.admit(request("quiet", now, 100), now);
        for (int i = 0; i < 10; i++) {
            shares.assignDue(List.of(request("flood", now, 100)), now);
        }
        RoutedRequest urgentFlood = request("flood", now, 100);
        urgentFlood.request().setDeadline(Instant.ofEpochMilli(now + 5));
        RoutedRequest urgentQuiet = request("quiet", now, 100);
        urgentQuiet.request().setDeadline(Instant.ofEpochMilli(now + 5));

        assertThat(shares.previewDue(List.of(urgentQuiet), now)).isEqualTo(now + 5);
        assertThat(shares.previewDue(List.of(urgentFlood), now)).isEqualTo(now + 10 * 100 * 2);
    }

    @Test
    void aGraphsQueueIsTakenTenantByTenantTheOneFurthestBehindFirst() {
        TenantShares shares = new TenantShares(t -> TenantQuotas.NONE);
        shares.assignDue(List.of(request("flood", 0, 50), request("flood", 0, 50)), 0);
        List<RoutedRequest> queued = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            queued.add(request("flood", i, 10));
        }
        queued.add(request("quiet", 5, 10));
        queued.add(request("other", 6, 10));
        queued.add(request("quiet", 7, 10));

        assertThat(shares.fairOrder(queued))
                .extracting(r -> r.request().getTenantId() + "@" + r.receivedAtMillis())
                .containsExactly(
                        "quiet@5", "other@6", "flood@0", "quiet@7", "flood@1", "flood@2", "flood@3",
                        "flood@4");
    }

    static RoutedRequest request(String tenant, long receivedAt, long encodeMillis) {
        AnalysisRequest request =
                AnalysisRequest.newBuilder()
                        .setRequestId(tenant + "-" + receivedAt)
                        .setTenantId(tenant)
                        .setPrompt("<task:embed> x")
                        .setSubmittedAt(Instant.ofEpochMilli(receivedAt))
                        .setAttributes(Map.of())
                        .build();
        return RoutedRequest.routed(
                request,
                new ReplyRoute(),
                new RequestDecision("g", "s", "1", null, null, List.of(), encodeMillis),
                "s",
                0,
                receivedAt);
    }
}
