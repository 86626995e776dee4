package io.zerolayer.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.zerolayer.client.ZeroLayerClient;
import io.zerolayer.cluster.LocalCluster;
import io.zerolayer.embedded.DemoTenant;
import io.zerolayer.jobs.ExecutorOptions;
import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.AnalysisResponse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * How a TaskManager crash looks to the people waiting for replies: a local multi-process cluster
 * ({@link LocalCluster}) runs the job saturated by a closed loop of customer-service tickets; one
 * TaskManager is killed with SIGKILL; the run measures the time from the kill to the JobManager
 * noticing it, to the first reply after recovery, and to full throughput again.
 *
 * <p>Throughput is counted by when the executor finished each reply ({@code completedAt}), and only
 * replies read under read_committed count: work done in the failed attempt after its last
 * checkpoint is aborted, redone and counted when it is redone. The rate before the kill is taken up
 * to two checkpoint intervals before it, since the kill aborts what came after. <em>Full
 * throughput</em> starts at the first five-second window after the kill that finishes at least 90 %
 * of that rate.
 */
public final class RecoveryBench {
    /** The fraction of the rate before the kill that counts as full throughput again. */
    static final double FULL = 0.9;

    /**
     * The window over which throughput after the kill is judged, in milliseconds: long enough that
     * the burst of requests queued during the outage cannot fill it alone.
     */
    static final long WINDOW_MILLIS = 10_000;

    /** What the run needs. */
    public record Options(
            Path home,
            Path flinkLib,
            Path jar,
            String appClasspath,
            Configuration settings,
            int taskManagers,
            int slots,
            int parallelism,
            int inFlight,
            Duration warmup,
            Duration before,
            Duration after,
            boolean replace,
            long seed,
            Path outDir) {}

    /** One reply: when the executor finished it and when the client received it. */
    record Reply(long completedAtMillis, long receivedAtMillis) {}

    /** The figures of a run; every time is in milliseconds after the kill. */
    public record Result(
            double ratePerSecondBefore,
            long noticedMillis,
            long firstReplyCompletedMillis,
            long firstReplyReceivedMillis,
            long fullThroughputMillis,
            int sent,
            int answered,
            int lost,
            Map<String, Integer> busySlotsBeforeKill,
            String killed,
            int[] completedPerSecond,
            int secondsBefore) {}

    private RecoveryBench() {}

    public static Result run(Options o) throws Exception {
        long checkpointMillis =
                o.settings()
                        .getOptional(ExecutorOptions.CHECKPOINT_INTERVAL)
                        .orElse(Duration.ofSeconds(1))
                        .toMillis();
        LocalCluster.Builder builder =
                LocalCluster.builder()
                        .home(o.home())
                        .flinkLib(o.flinkLib())
                        .appClasspath(o.appClasspath())
                        .taskManagers(o.taskManagers())
                        .slotsPerTaskManager(o.slots())
                        .restPort(LocalCluster.freePort())
                        .settingsFrom(o.settings());
        try (LocalCluster cluster = builder.build()) {
            progress(
                    "starting a broker, a JobManager and %d TaskManagers (%d slots each) in %s",
                    o.taskManagers(), o.slots(), o.home());
            cluster.start();
            // in the namespace of the tenant the client signs as, as the job requires
            String replies =
                    "zerolayer.replies."
                            + cluster.credentials().map(c -> c.tenantId() + ".").orElse("")
                            + "recovery-bench";
            try (Admin admin = Admin.create(cluster.adminConnection().properties())) {
                admin.createTopics(List.of(new NewTopic(replies, 1, (short) 1))).all().get();
            }
            String job =
                    cluster.rest()
                            .submit(
                                    o.jar(),
                                    List.of(
                                            "run",
                                            "--bootstrap-servers",
                                            cluster.bootstrapServers()),
                                    o.parallelism(),
                                    null);
            cluster.rest().awaitRunning(job, Duration.ofMinutes(5));
            progress("job %s runs at parallelism %d", job, o.parallelism());
            ZeroLayerClient.Builder clientBuilder =
                    ZeroLayerClient.builder()
                            .bootstrapServers(cluster.bootstrapServers())
                            .replyTopic(replies)
                            .timeout(Duration.ofMinutes(5));
            cluster.credentials()
                    .ifPresent(
                            c ->
                                    clientBuilder
                                            .credentials(c)
                                            .kafkaSettings(cluster.kafkaSettings(c.tenantId())));
            try (ZeroLayerClient client = clientBuilder.build()) {
                return measure(o, cluster, job, client, checkpointMillis);
            }
        }
    }

    private static Result measure(
            Options o,
            LocalCluster cluster,
            String job,
            ZeroLayerClient client,
            long checkpointMillis)
            throws Exception {
        Workload.Stream stream = Workload.CUSTOMER_SERVICE.stream(o.seed());
        ConcurrentLinkedQueue<Reply> answered = new ConcurrentLinkedQueue<>();
        AtomicInteger lost = new AtomicInteger();
        Semaphore permits = new Semaphore(o.inFlight());
        List<CompletableFuture<?>> all = new ArrayList<>();
        long start = System.currentTimeMillis();
        long killAt = start + o.warmup().toMillis() + o.before().toMillis();
        long end = killAt + o.after().toMillis();
        progress(
                "closed loop of %d tickets in flight: %d s warm-up, kill after %d s more, then"
                        + " %d s",
                o.inFlight(),
                o.warmup().toSeconds(),
                o.before().toSeconds(),
                o.after().toSeconds());
        Map<String, Integer> busy = null;
        String killed = LocalCluster.taskManagerName(0);
        long killedAt = 0;
        long lastProgress = start;
        int sent = 0;
        while (true) {
            long now = System.currentTimeMillis();
            if (now >= end) {
                break;
            }
            if (killedAt == 0 && now >= killAt) {
                busy = cluster.rest().busySlots();
                killedAt = System.currentTimeMillis();
                cluster.killTaskManager(0);
                progress("killed %s (busy slots before: %s)", killed, busy);
                if (o.replace()) {
                    cluster.startTaskManager();
                    progress("started a replacement TaskManager");
                }
            }
            if (now - lastProgress >= 10_000) {
                lastProgress = now;
                progress("%d s: %d sent, %d answered", (now - start) / 1000, sent, answered.size());
            }
            if (!permits.tryAcquire(200, TimeUnit.MILLISECONDS)) {
                continue;
            }
            Workload.Request r = stream.next();
            AnalysisRequest request =
                    AnalysisRequest.newBuilder()
                            .setRequestId(r.id())
                            .setTenantId(DemoTenant.ID)
                            .setPrompt(r.prompt())
                            .setSubmittedAt(Instant.now())
                            .setAttributes(r.attributes())
                            .build();
            sent++;
            all.add(
                    client.submit(request)
                            .whenComplete(
                                    (AnalysisResponse response, Throwable error) -> {
                                        permits.release();
                                        if (error != null) {
                                            lost.incrementAndGet();
                                        } else {
                                            answered.add(
                                                    new Reply(
                                                            response.getTimings()
                                                                    .getCompletedAt()
                                                                    .toEpochMilli(),
                                                            System.currentTimeMillis()));
                                        }
                                    }));
        }
        progress("sent %d; waiting for the %d still in flight", sent, sent - answered.size());
        for (CompletableFuture<?> f : all) {
            try {
                f.get(6, TimeUnit.MINUTES);
            } catch (Exception e) {
                // counted as lost
            }
        }
        long kill = killedAt;
        long noticed =
                cluster.rest().failureTimes(job).stream()
                        .filter(t -> t >= kill)
                        .findFirst()
                        .map(t -> t - kill)
                        .orElse(-1L);
        return figures(
                new ArrayList<>(answered),
                start + o.warmup().toMillis(),
                killedAt,
                end,
                checkpointMillis,
                noticed,
                sent,
                lost.get(),
                busy,
                killed);
    }

    /** The figures of a run's replies; package-private for its unit test. */
    static Result figures(
            List<Reply> replies,
            long measureFrom,
            long killedAt,
            long end,
            long checkpointMillis,
            long noticedMillis,
            int sent,
            int lost,
            Map<String, Integer> busy,
            String killed) {
        long beforeUntil = killedAt - 2 * checkpointMillis;
        long countedBefore =
                replies.stream()
                        .filter(
                                r ->
                                        r.completedAtMillis() >= measureFrom
                                                && r.completedAtMillis() < beforeUntil)
                        .count();
        double rate = countedBefore * 1000.0 / Math.max(1, beforeUntil - measureFrom);
        long firstCompleted =
                replies.stream()
                        .mapToLong(Reply::completedAtMillis)
                        .filter(t -> t >= killedAt)
                        .min()
                        .orElse(Long.MIN_VALUE);
        long firstReceived =
                replies.stream()
                        .filter(r -> r.completedAtMillis() >= killedAt)
                        .mapToLong(Reply::receivedAtMillis)
                        .min()
                        .orElse(Long.MIN_VALUE);
        // per second after the kill (and the seconds before it, for the timeline)
        int secondsBefore = (int) ((killedAt - measureFrom) / 1000);
        int seconds = secondsBefore + (int) ((end - killedAt) / 1000);
        int[] perSecond = new int[seconds];
        long[] completedAfter =
                replies.stream()
                        .mapToLong(Reply::completedAtMillis)
                        .filter(t -> t >= killedAt)
                        .sorted()
                        .toArray();
        for (Reply r : replies) {
            long t = r.completedAtMillis() - (killedAt - secondsBefore * 1000L);
            if (t >= 0 && t / 1000 < seconds) {
                perSecond[(int) (t / 1000)]++;
            }
        }
        long full = Long.MIN_VALUE;
        double needed = FULL * rate * WINDOW_MILLIS / 1000.0;
        if (firstCompleted != Long.MIN_VALUE) {
            // slide a window over the completions after the kill, starting at each one
            int j = 0;
            for (int i = 0; i < completedAfter.length; i++) {
                long windowEnd = completedAfter[i] + WINDOW_MILLIS;
                if (windowEnd > end) {
                    break;
                }
                while (j < completedAfter.length && completedAfter[j] < windowEnd) {
                    j++;
                }
                if (j - i >= needed) {
                    full = completedAfter[i] - killedAt;
                    break;
                }
            }
        }
        return new Result(
                rate,
                noticedMillis,
                firstCompleted == Long.MIN_VALUE ? -1 : firstCompleted - killedAt,
                firstReceived == Long.MIN_VALUE ? -1 : firstReceived - killedAt,
                full == Long.MIN_VALUE ? -1 : full,
                sent,
                replies.size(),
                lost,
                busy,
                killed,
                perSecond,
                secondsBefore);
    }

    /** The figures as a Markdown report. */
    public static String markdown(Result r, Options o) {
        StringBuilder md = new StringBuilder();
        md.append("# Recovery from a TaskManager kill\n\n");
        md.append(
                String.format(
                        Locale.ROOT,
                        "`zerolayer bench recovery`: %d TaskManagers × %d slots, parallelism %d,"
                                + " customer-service tickets, %d in flight (closed loop);"
                                + " SIGKILL of %s%s.%n%n",
                        o.taskManagers(),
                        o.slots(),
                        o.parallelism(),
                        o.inFlight(),
                        r.killed(),
                        o.replace() ? ", a replacement started at once" : ", no replacement"));
        md.append("| | after the kill |\n|---|---|\n");
        md.append(row("JobManager notices the failure", r.noticedMillis()));
        md.append(row("first reply finished (executor)", r.firstReplyCompletedMillis()));
        md.append(row("first reply received (client, committed)", r.firstReplyReceivedMillis()));
        md.append(
                row(
                        String.format(
                                Locale.ROOT,
                                "full throughput (%.0f %% of %.1f replies/s over %d s)",
                                FULL * 100,
                                r.ratePerSecondBefore(),
                                WINDOW_MILLIS / 1000),
                        r.fullThroughputMillis()));
        md.append(
                String.format(
                        Locale.ROOT,
                        "%nRequests: %d sent, %d answered, %d without a reply. Busy slots before"
                                + " the kill: %s.%n%n",
                        r.sent(),
                        r.answered(),
                        r.lost(),
                        r.busySlotsBeforeKill()));
        md.append("Replies finished per second (the kill at 0):\n\n```\n");
        int[] ps = r.completedPerSecond();
        for (int i = 0; i < ps.length; i += 10) {
            md.append(String.format(Locale.ROOT, "%+4d s:", i - r.secondsBefore()));
            for (int k = i; k < Math.min(ps.length, i + 10); k++) {
                md.append(String.format(Locale.ROOT, " %4d", ps[k]));
            }
            md.append('\n');
        }
        md.append("```\n");
        return md.toString();
    }

    /**
     * Writes the report to {@code latest-recovery.md} and the figures as JSON; returns the JSON.
     */
    public static Path write(Result r, Options o) throws IOException {
        Files.createDirectories(o.outDir());
        String stamp =
                DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")
                        .withZone(ZoneOffset.UTC)
                        .format(Instant.now());
        ObjectNode json = BenchWorker.JSON.createObjectNode();
        json.put("taskManagers", o.taskManagers());
        json.put("slots", o.slots());
        json.put("parallelism", o.parallelism());
        json.put("inFlight", o.inFlight());
        json.put("replacement", o.replace());
        json.put("ratePerSecondBefore", r.ratePerSecondBefore());
        json.put("noticedMillis", r.noticedMillis());
        json.put("firstReplyCompletedMillis", r.firstReplyCompletedMillis());
        json.put("firstReplyReceivedMillis", r.firstReplyReceivedMillis());
        json.put("fullThroughputMillis", r.fullThroughputMillis());
        json.put("sent", r.sent());
        json.put("answered", r.answered());
        json.put("lost", r.lost());
        json.put("killed", r.killed());
        json.putPOJO("busySlotsBeforeKill", r.busySlotsBeforeKill());
        json.put("secondsBefore", r.secondsBefore());
        ArrayNode ps = json.putArray("completedPerSecond");
        for (int v : r.completedPerSecond()) {
            ps.add(v);
        }
        Path file = o.outDir().resolve("recovery-" + stamp + ".json");
        Files.writeString(file, BenchWorker.JSON.writeValueAsString(json));
        Files.writeString(o.outDir().resolve("latest-recovery.md"), markdown(r, o));
        return file;
    }

    private static String row(String what, long millis) {
        return "| "
                + what
                + " | "
                + (millis < 0 ? "not seen" : String.format(Locale.ROOT, "%.1f s", millis / 1000.0))
                + " |\n";
    }

    private static void progress(String format, Object... args) {
        System.out.printf(
                Locale.ROOT,
                "[recovery %s] %s%n",
                DateTimeFormatter.ofPattern("HH:mm:ss")
                        .withZone(ZoneOffset.UTC)
                        .format(Instant.now()),
                String.format(Locale.ROOT, format, args));
    }
}
