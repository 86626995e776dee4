package io.zerolayer.operators.flink;

import io.zerolayer.operators.kafka.ReplyRoute;
import io.zerolayer.operators.replies.Reply;
import io.zerolayer.operators.replies.Responses;
import io.zerolayer.operators.scheduling.TenantShares;
import io.zerolayer.operators.tenants.RateBuckets;
import io.zerolayer.operators.tenants.TenantQuotas;
import io.zerolayer.schemas.AnalysisRequest;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;

/**
 * The tenants' per-second quotas one classifier subtask enforces, each its equal part of the job's:
 * requests a second, checked right after a request's signature and before its prompt is read, so a
 * flood beyond its rate costs little more than its reply; and estimated encoder tokens a second,
 * checked once the prompt is classified. A request over either, of a tenant set to reject, is
 * answered REJECTED with ZL095, the quota and when to retry; one of a tenant set to backpressure
 * goes on to wait for its share in its slot.
 */
final class RateQuotas {
    private final RateBuckets requests;
    private final RateBuckets tokens;
    private final MetricGroup metrics;
    private final Map<String, Counter> refused = new HashMap<>();

    /**
     * @param subtasks the classifier's subtasks, which see a tenant's requests spread evenly
     * @param metrics where {@code quota_requests_over_quota_total{quota=…}} counts refusals
     */
    RateQuotas(int subtasks, MetricGroup metrics) {
        this.requests = new RateBuckets(subtasks);
        this.tokens = new RateBuckets(subtasks);
        this.metrics = metrics;
    }

    /** The rejection of a request over its tenant's requests-per-second quota, else null. */
    Reply overRequests(AnalysisRequest request, ReplyRoute route, TenantQuotas q, long now) {
        long wait = requests.take(request.getTenantId(), 1, q.requestsPerSecond(), now);
        if (wait == 0 || q.overQuota() != TenantQuotas.OverQuota.REJECT) {
            return null;
        }
        return rejection(
                request,
                route,
                "requests-per-second",
                "tenant '"
                        + request.getTenantId()
                        + "' is over its quota of "
                        + q.requestsPerSecond()
                        + " requests a second",
                wait,
                0);
    }

    /**
     * The rejection of a request bringing {@code estimatedTokens} over its tenant's
     * encoder-tokens-per-second quota, else null.
     */
    Reply overTokens(
            AnalysisRequest request,
            ReplyRoute route,
            TenantQuotas q,
            long estimatedTokens,
            long classifyMicros,
            long now) {
        long wait =
                tokens.take(
                        request.getTenantId(), estimatedTokens, q.encoderTokensPerSecond(), now);
        if (wait == 0 || q.overQuota() != TenantQuotas.OverQuota.REJECT) {
            return null;
        }
        return rejection(
                request,
                route,
                "encoder-tokens-per-second",
                "tenant '"
                        + request.getTenantId()
                        + "' is over its encoder-token quota ("
                        + q.encoderTokensPerSecond()
                        + " a second; this request brings about "
                        + estimatedTokens
                        + ")",
                wait,
                classifyMicros);
    }

    private Reply rejection(
            AnalysisRequest request,
            ReplyRoute route,
            String quota,
            String why,
            long retryAfterMillis,
            long classifyMicros) {
        refused.computeIfAbsent(
                        quota,
                        k -> metrics.addGroup("quota", k).counter("requests_over_quota_total"))
                .inc();
        return new Reply(
                Responses.rejected(
                        request,
                        List.of(TenantShares.overQuota(why, retryAfterMillis)),
                        classifyMicros),
                route);
    }
}
