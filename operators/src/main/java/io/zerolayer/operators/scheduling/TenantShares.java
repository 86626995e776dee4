package io.zerolayer.operators.scheduling;

import io.zerolayer.operators.contracts.DiagnosticCodes;
import io.zerolayer.operators.prompt.PromptDiagnostic;
import io.zerolayer.operators.routing.RoutedRequest;
import io.zerolayer.operators.tenants.TenantQuotas;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * What each tenant holds of one executor slot, and the order that gives each its share.
 *
 * <p><b>Quota.</b> A request is admitted while its tenant holds fewer than its {@code
 * in-flight-per-slot} requests here, queued or running; beyond, it is rejected (ZL095, with when to
 * retry) or, for a tenant set to {@code backpressure}, admitted to wait its turn.
 *
 * <p><b>Order: virtual clocks.</b> Each tenant has a virtual clock of the slot's time it has been
 * given: a batch advances the clock of each request's tenant by the request's estimated encode time
 * times the number of tenants sharing the slot (with work in it, or sending to it in the last
 * {@value #ACTIVE_MILLIS} ms: a light tenant has nothing in flight most of the time), starting no
 * earlier than the request arrived. A request's due time (what the slot's inference thread orders
 * batches by, earliest first) counts from that start rather than from its arrival. A tenant sending
 * less than its share keeps its clock at the present, so its requests are due as if alone; one
 * sending more runs its clock ahead, and its requests are due later the further it is ahead — it is
 * served at its share and waits for the rest, without starving anyone. Its {@code deadline}s cannot
 * pull it back before its clock. This is Zhang's VirtualClock (1990) with equal weights, on the
 * due-time order of issue 23; it was chosen over round-robin between tenants because it composes
 * with deadlines and slicing and needs no per-tenant queue. Within one graph's queue, the next
 * batch takes requests tenant by tenant in the order of their clocks, so a flood on a graph does
 * not push others of that graph back. Clocks and counts live in the slot's memory: they order work,
 * they are not state, and after a restore they start afresh.
 */
public final class TenantShares {
    private final Function<String, TenantQuotas> quotas;
    private final Map<String, Integer> inFlight = new HashMap<>();
    private final Map<String, Long> clocks = new HashMap<>();

    /** When each tenant last sent a request here. */
    private final Map<String, Long> lastSeen = new HashMap<>();

    /**
     * How long a tenant counts as sharing the slot after its last request: a light tenant has
     * nothing in flight most of the time, yet its share is due whenever it sends.
     */
    static final long ACTIVE_MILLIS = 2_000;

    /**
     * @param quotas each tenant's quotas
     */
    public TenantShares(Function<String, TenantQuotas> quotas) {
        this.quotas = quotas;
    }

    /**
     * Admits a request to this slot, or says why not.
     *
     * @return null when admitted (it counts until {@link #answered}); else the REJECTED answer's
     *     diagnostic
     */
    public PromptDiagnostic admit(RoutedRequest r, long nowMillis) {
        String tenant = r.request().getTenantId();
        TenantQuotas q = quotas.apply(tenant);
        int held = inFlight.getOrDefault(tenant, 0);
        if (q.inFlightPerSlot() > 0
                && held >= q.inFlightPerSlot()
                && q.overQuota() == TenantQuotas.OverQuota.REJECT) {
            long retryAfter = Math.max(work(r), clocks.getOrDefault(tenant, nowMillis) - nowMillis);
            return overQuota(
                    "tenant '"
                            + tenant
                            + "' holds "
                            + held
                            + " requests in this slot, its in-flight-per-slot quota",
                    retryAfter);
        }
        inFlight.merge(tenant, 1, Integer::sum);
        lastSeen.put(tenant, nowMillis);
        if (++admitted % SWEEP_EVERY == 0) {
            // a clock in the past with nothing in flight says nothing: forget it, so claimed
            // tenant ids (auth none) cannot grow the maps
            clocks.entrySet()
                    .removeIf(e -> e.getValue() <= nowMillis && !inFlight.containsKey(e.getKey()));
            lastSeen.entrySet().removeIf(e -> e.getValue() < nowMillis - ACTIVE_MILLIS);
        }
        return null;
    }

    /** Admissions between two sweeps of clocks that no longer matter. */
    static final int SWEEP_EVERY = 1024;

    private long admitted;

    /** The REJECTED diagnostic of a request over a quota; the hint says when to retry. */
    public static PromptDiagnostic overQuota(String why, long retryAfterMillis) {
        return PromptDiagnostic.error(
                DiagnosticCodes.OVER_QUOTA,
                0,
                0,
                why + "; retry after " + retryAfterMillis + " ms",
                "retry-after-ms=" + retryAfterMillis);
    }

    /** A request admitted here was answered. */
    public void answered(String tenant) {
        inFlight.computeIfPresent(tenant, (t, n) -> n <= 1 ? null : n - 1);
    }

    /** Tenants sharing this slot: holding requests in it, or sending in the last seconds. */
    int activeTenants(long nowMillis) {
        int active = 0;
        for (Map.Entry<String, Long> e : lastSeen.entrySet()) {
            if (inFlight.containsKey(e.getKey()) || e.getValue() >= nowMillis - ACTIVE_MILLIS) {
                active++;
            }
        }
        return Math.max(1, active);
    }

    /**
     * The due time of a batch about to run ({@link MicroBatchPolicy#due} counted from each
     * request's fair start), advancing its tenants' clocks.
     */
    public long assignDue(List<RoutedRequest> batch, long nowMillis) {
        return due(batch, nowMillis, true);
    }

    /** The due time {@link #assignDue} would give, without advancing any clock. */
    public long previewDue(List<RoutedRequest> batch, long nowMillis) {
        return due(batch, nowMillis, false);
    }

    private long due(List<RoutedRequest> batch, long nowMillis, boolean advance) {
        Map<String, Long> seen = advance ? clocks : new HashMap<>(clocks);
        int tenants = activeTenants(nowMillis);
        long due = Long.MAX_VALUE;
        for (RoutedRequest r : batch) {
            String tenant = r.request().getTenantId();
            long start = Math.max(r.receivedAtMillis(), seen.getOrDefault(tenant, 0L));
            seen.put(tenant, start + work(r) * tenants);
            long own = start + MicroBatchPolicy.STRETCH * work(r);
            java.time.Instant deadline = r.request().getDeadline();
            if (deadline != null) {
                own = Math.min(own, Math.max(start, deadline.toEpochMilli()));
            }
            due = Math.min(due, own);
        }
        return due;
    }

    /**
     * A graph queue's requests in the order its batches take them: tenant by tenant, the tenant
     * whose clock is furthest behind first, each tenant's own in arrival order.
     */
    public List<RoutedRequest> fairOrder(List<RoutedRequest> queued) {
        Map<String, ArrayDeque<RoutedRequest>> byTenant = new LinkedHashMap<>();
        for (RoutedRequest r : queued) {
            byTenant.computeIfAbsent(r.request().getTenantId(), t -> new ArrayDeque<>()).add(r);
        }
        if (byTenant.size() <= 1) {
            return queued;
        }
        List<String> turn = new ArrayList<>(byTenant.keySet());
        turn.sort(Comparator.comparingLong(t -> clocks.getOrDefault(t, 0L)));
        List<RoutedRequest> out = new ArrayList<>(queued.size());
        while (out.size() < queued.size()) {
            for (String t : turn) {
                RoutedRequest next = byTenant.get(t).poll();
                if (next != null) {
                    out.add(next);
                }
            }
        }
        return out;
    }

    private static long work(RoutedRequest r) {
        return Math.max(1, r.decision().encodeMillisAlone());
    }
}
