package io.zerolayer.operators.flink;

import io.zerolayer.operators.door.InvalidRequestException;
import io.zerolayer.operators.door.RequestAuthenticator;
import io.zerolayer.operators.door.UnauthenticatedRequestException;
import io.zerolayer.operators.kafka.RawRecord;
import io.zerolayer.operators.tenants.TenantKey;
import io.zerolayer.operators.tenants.TenantRegistry;
import io.zerolayer.schemas.AnalysisRequest;
import java.io.IOException;
import java.io.Serializable;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;

/**
 * What a decoded request passes before anything about it is answered: its tenant's signature
 * ({@link RequestAuthenticator}) and the replay check. A request id is kept in keyed state (the
 * classifier is keyed by the ids a record claims, {@link RequestKeys}) for the replay window once
 * the request has passed every check at the door ({@link #taken}), so a copy of a signed record
 * sent again, to any partition, is refused, and one refused at the door (a bad reply topic, say)
 * may be sent again, corrected, under its id. Only verified ids are kept, so forged records cannot
 * block a tenant's future ids.
 */
final class TenantDoor implements Serializable {
    private static final long serialVersionUID = 1L;

    private final RequestAuthenticator authenticator;

    /** How long an id is kept; null: ids are not checked for replays (a bounded run). */
    private final Duration replayWindow;

    private transient ValueState<Boolean> seen;
    private transient MetricGroup metrics;
    private transient Map<String, Counter> refusedByReason;
    private transient Map<String, Counter> verifiedByKey;

    TenantDoor(RequestAuthenticator authenticator, Duration replayWindow) {
        this.authenticator = authenticator;
        this.replayWindow = replayWindow;
    }

    void open(RuntimeContext context) {
        metrics = context.getMetricGroup();
        refusedByReason = new HashMap<>();
        verifiedByKey = new HashMap<>();
        if (replayWindow != null) {
            ValueStateDescriptor<Boolean> ids =
                    new ValueStateDescriptor<>("verified-request-id", Types.BOOLEAN);
            ids.enableTimeToLive(
                    StateTtlConfig.newBuilder(replayWindow)
                            .setUpdateType(StateTtlConfig.UpdateType.OnCreateAndWrite)
                            .setStateVisibility(StateTtlConfig.StateVisibility.NeverReturnExpired)
                            .build());
            seen = context.getState(ids);
        }
    }

    /**
     * Verifies the sender of a decoded request, under the current key (its claimed ids).
     *
     * @throws UnauthenticatedRequestException when it cannot be verified or was seen before
     */
    void verify(RawRecord raw, AnalysisRequest request, TenantRegistry tenants, long now)
            throws IOException {
        String tenantId = request.getTenantId() == null ? "" : request.getTenantId();
        String requestId = request.getRequestId() == null ? "" : request.getRequestId();
        TenantKey key = authenticator.verify(raw, tenantId, requestId, tenants, now);
        if (seen != null && seen.value() != null) {
            throw new UnauthenticatedRequestException(
                    UnauthenticatedRequestException.Reason.REPLAYED,
                    "tenant '"
                            + tenantId
                            + "' already sent request '"
                            + InvalidRequestException.excerpt(requestId)
                            + "' within the replay window ("
                            + replayWindow.toSeconds()
                            + " s); a new request needs a new requestId");
        }
        // which key signs, per tenant: an operator retires the old key of a rotation at zero
        verifiedByKey
                .computeIfAbsent(
                        tenantId + "\n" + key.id(),
                        k ->
                                metrics.addGroup("tenant", tenantId)
                                        .addGroup("key", key.id())
                                        .counter("requests_verified_total"))
                .inc();
    }

    /** The verified request passed the door: its id is taken for the replay window. */
    void taken() throws IOException {
        if (seen != null) {
            seen.update(Boolean.TRUE);
        }
    }

    /** Counts a refusal by its reason. */
    void refused(UnauthenticatedRequestException e) {
        // flink_..._operator_reason_requests_unauthenticated_total{reason="bad-signature"}
        refusedByReason
                .computeIfAbsent(
                        e.reason().label(),
                        r ->
                                metrics.addGroup("reason", r)
                                        .counter("requests_unauthenticated_total"))
                .inc();
    }
}
