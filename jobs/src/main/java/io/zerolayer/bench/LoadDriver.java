package io.zerolayer.bench;

import io.zerolayer.client.ZeroLayerClient;
import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.AnalysisResponse;
import io.zerolayer.schemas.ResponseStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Sends a workload's requests to a running job through the real broker and times each reply.
 *
 * <ul>
 *   <li><b>Closed loop</b>: at most {@code window} requests in flight; a new one goes out when a
 *       reply comes back. Measures the most a system sustains.
 *   <li><b>Open loop</b>: requests go out on a fixed schedule whatever the replies do, and each
 *       latency runs from the request's <em>scheduled</em> time, so a stalled system cannot hide
 *       its queue (no coordinated omission).
 * </ul>
 *
 * Every request sent is waited for; one without a reply is counted as lost, never skipped.
 */
final class LoadDriver {
    private final ZeroLayerClient client;
    private final String tenant;

    /**
     * Makes every request id this driver sends unique: the workloads' streams number their requests
     * from 0 in each phase, and the job refuses a tenant's request id it has seen within the replay
     * window (docs/tenants.md), as a real client's retry with an old id would be.
     */
    private final java.util.concurrent.atomic.AtomicLong sent =
            new java.util.concurrent.atomic.AtomicLong();

    LoadDriver(ZeroLayerClient client, String tenant) {
        this.client = client;
        this.tenant = tenant;
    }

    /** What one phase measured. */
    record Phase(
            String mode,
            double offeredPerSecond,
            int sent,
            int ok,
            int failed,
            int lost,
            double seconds,
            double requestsPerSecond,
            Latencies latency,
            Map<String, Latencies> latencyByKind,
            Latencies delivery,
            double cpuSecondsPerRequest,
            Map<String, Double> cpuMillisPerRequestByThreads,
            long peakRssBytes,
            int compiles,
            double meanRouteMicros,
            int graded,
            int right) {}

    private static final class Outcome {
        final long scheduledNanos;
        final boolean measured;
        volatile String kind;
        volatile io.zerolayer.operators.eval.LabelledPrompts.LabelledPrompt expected;
        volatile long repliedNanos;
        volatile long repliedAtMillis;
        volatile AnalysisResponse response;
        volatile boolean lost;

        Outcome(long scheduledNanos, boolean measured) {
            this.scheduledNanos = scheduledNanos;
            this.measured = measured;
        }
    }

    /** Closed loop: warm up, then measure for {@code measureSeconds}. */
    Phase closedLoop(
            Workload.Stream stream, int window, double warmupSeconds, double measureSeconds)
            throws InterruptedException {
        Semaphore permits = new Semaphore(window);
        List<Outcome> outcomes = new ArrayList<>();
        List<CompletableFuture<?>> all = new ArrayList<>();
        long start = System.nanoTime();
        long measureFrom = start + (long) (warmupSeconds * 1e9);
        long end = measureFrom + (long) (measureSeconds * 1e9);
        Meter meter = null;
        while (true) {
            long left = end - System.nanoTime();
            if (left <= 0 || !permits.tryAcquire(left, TimeUnit.NANOSECONDS)) {
                break;
            }
            long now = System.nanoTime();
            if (now >= end) {
                permits.release();
                break;
            }
            if (meter == null && now >= measureFrom) {
                meter = new Meter();
            }
            Outcome o = new Outcome(now, now >= measureFrom);
            outcomes.add(o);
            all.add(
                    send(stream.next(), o, Instant.now())
                            .whenComplete((r, e) -> permits.release()));
        }
        return finish("closed", 0, outcomes, all, meter, measureFrom, end);
    }

    /** Open loop at {@code perSecond} for warm-up plus measurement. */
    Phase openLoop(
            Workload.Stream stream, double perSecond, double warmupSeconds, double measureSeconds) {
        List<Outcome> outcomes = new ArrayList<>();
        List<CompletableFuture<?>> all = new ArrayList<>();
        long start = System.nanoTime();
        long measureFrom = start + (long) (warmupSeconds * 1e9);
        long end = measureFrom + (long) (measureSeconds * 1e9);
        double interval = 1e9 / perSecond;
        Meter meter = null;
        for (long k = 0; ; k++) {
            long scheduled = start + (long) (k * interval);
            if (scheduled >= end) {
                break;
            }
            long wait = scheduled - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            if (meter == null && scheduled >= measureFrom) {
                meter = new Meter();
            }
            Outcome o = new Outcome(scheduled, scheduled >= measureFrom);
            outcomes.add(o);
            // the request's timestamp is its scheduled time, as a gateway would stamp it
            long lagMillis = (System.nanoTime() - scheduled) / 1_000_000;
            all.add(send(stream.next(), o, Instant.now().minusMillis(lagMillis)));
        }
        return finish("open", perSecond, outcomes, all, meter, measureFrom, end);
    }

    /** Sends {@code requests} with at most {@code window} in flight, all of them measured. */
    Phase fixed(List<Workload.Request> requests, int window) throws InterruptedException {
        Semaphore permits = new Semaphore(window);
        List<Outcome> outcomes = new ArrayList<>();
        List<CompletableFuture<?>> all = new ArrayList<>();
        long start = System.nanoTime();
        Meter meter = new Meter();
        for (Workload.Request r : requests) {
            permits.acquire();
            Outcome o = new Outcome(System.nanoTime(), true);
            outcomes.add(o);
            all.add(send(r, o, Instant.now()).whenComplete((x, e) -> permits.release()));
        }
        return finish("fixed", 0, outcomes, all, meter, start, Long.MAX_VALUE);
    }

    private CompletableFuture<AnalysisResponse> send(
            Workload.Request r, Outcome o, Instant submittedAt) {
        o.kind = r.kind();
        o.expected = r.expected();
        AnalysisRequest request =
                AnalysisRequest.newBuilder()
                        .setRequestId(r.id() + "#" + sent.incrementAndGet())
                        .setTenantId(tenant)
                        .setPrompt(r.prompt())
                        .setSubmittedAt(submittedAt)
                        .setAttributes(r.attributes())
                        .build();
        return client.submit(request)
                .whenComplete(
                        (response, error) -> {
                            o.repliedNanos = System.nanoTime();
                            o.repliedAtMillis = System.currentTimeMillis();
                            if (error != null) {
                                o.lost = true;
                            } else {
                                o.response = response;
                            }
                        });
    }

    /** CPU and peak memory of the measured part of a phase. */
    private static final class Meter {
        final long cpu0 = ProcessStats.cpuNanos();
        final ThreadCpu.Snapshot threads0 = ThreadCpu.take();

        Meter() {
            ProcessStats.resetPeak();
        }
    }

    private static Phase finish(
            String mode,
            double offered,
            List<Outcome> outcomes,
            List<CompletableFuture<?>> all,
            Meter meter,
            long measureFrom,
            long end) {
        for (CompletableFuture<?> f : all) {
            try {
                f.get(10, TimeUnit.MINUTES);
            } catch (Exception e) {
                // counted as lost by its outcome
            }
        }
        long cpu = meter == null ? 0 : ProcessStats.cpuNanos() - meter.cpu0;
        ThreadCpu.Snapshot threads1 = ThreadCpu.take();
        Map<String, Double> byThreads =
                meter == null ? Map.of() : ThreadCpu.millisByGroup(meter.threads0, threads1);
        if (meter != null && Boolean.getBoolean("zerolayer.bench.thread-names")) {
            System.out.println(ThreadCpu.millisByName(meter.threads0, threads1));
        }
        long peak = ProcessStats.peakRssBytes();
        int sent = 0;
        int ok = 0;
        int failed = 0;
        int lost = 0;
        int compiles = 0;
        long routeMicros = 0;
        int graded = 0;
        int right = 0;
        int completedInWindow = 0;
        long lastReply = measureFrom;
        List<Long> latencies = new ArrayList<>();
        Map<String, List<Long>> byKind = new java.util.TreeMap<>();
        List<Long> deliveries = new ArrayList<>();
        for (Outcome o : outcomes) {
            if (o.response != null && o.repliedNanos >= measureFrom && o.repliedNanos <= end) {
                completedInWindow++; // whenever it was sent: replies per second of the window
            }
            if (!o.measured) {
                continue;
            }
            sent++;
            if (o.lost || o.response == null) {
                lost++;
                continue;
            }
            AnalysisResponse r = o.response;
            if (o.expected != null) { // a labelled request: was its answer right?
                graded++;
                if (r.getStatus() == ResponseStatus.OK && o.expected.right(r.getOutput())) {
                    right++;
                }
            }
            if (r.getStatus() == ResponseStatus.OK) {
                ok++;
            } else {
                failed++;
            }
            if (r.getTimings().getCompileMicros() > 0) {
                compiles++;
            }
            routeMicros += r.getTimings().getClassifyMicros();
            latencies.add(o.repliedNanos - o.scheduledNanos);
            byKind.computeIfAbsent(String.valueOf(o.kind), k -> new ArrayList<>())
                    .add(o.repliedNanos - o.scheduledNanos);
            // the job stamps completedAt when its answer is ready; what follows is the sink, the
            // transaction's commit at the next checkpoint and the client's read (one clock: the
            // job runs in this process)
            long ready = r.getTimings().getCompletedAt().toEpochMilli();
            deliveries.add(Math.max(0, o.repliedAtMillis - ready) * 1_000_000);
            lastReply = Math.max(lastReply, o.repliedNanos);
        }
        // closed and open loops: replies within the measured window over its length; a fixed set:
        // all replies over the time to the last one
        double seconds =
                end == Long.MAX_VALUE ? (lastReply - measureFrom) / 1e9 : (end - measureFrom) / 1e9;
        int completed = end == Long.MAX_VALUE ? ok + failed : completedInWindow;
        int answered = ok + failed;
        return new Phase(
                mode,
                offered,
                sent,
                ok,
                failed,
                lost,
                seconds,
                seconds <= 0 ? 0 : completed / seconds,
                Latencies.ofNanos(latencies.stream().mapToLong(Long::longValue).toArray()),
                latencyByKind(byKind),
                Latencies.ofNanos(deliveries.stream().mapToLong(Long::longValue).toArray()),
                answered == 0 ? 0 : cpu / 1e9 / answered,
                perRequest(byThreads, answered),
                peak,
                compiles,
                answered == 0 ? 0 : (double) routeMicros / answered,
                graded,
                right);
    }

    private static Map<String, Latencies> latencyByKind(Map<String, List<Long>> byKind) {
        Map<String, Latencies> out = new java.util.TreeMap<>();
        byKind.forEach(
                (kind, nanos) ->
                        out.put(
                                kind,
                                Latencies.ofNanos(
                                        nanos.stream().mapToLong(Long::longValue).toArray())));
        return out;
    }

    /** Each thread group's CPU milliseconds a request answered. */
    private static Map<String, Double> perRequest(Map<String, Double> millis, int answered) {
        Map<String, Double> per = new java.util.LinkedHashMap<>();
        if (answered > 0) {
            millis.forEach((group, ms) -> per.put(group, ms / answered));
        }
        return per;
    }
}
