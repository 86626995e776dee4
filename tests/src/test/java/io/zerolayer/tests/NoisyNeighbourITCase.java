package io.zerolayer.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.zerolayer.bench.Workload;
import io.zerolayer.client.ZeroLayerClient;
import io.zerolayer.jobs.ExecutorOptions;
import io.zerolayer.jobs.KafkaOptions;
import io.zerolayer.jobs.TenancyOptions;
import io.zerolayer.operators.contracts.DiagnosticCodes;
import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.AnalysisResponse;
import io.zerolayer.schemas.ResponseStatus;
import io.zerolayer.tests.testutils.EmbeddedKafkaExtension;
import io.zerolayer.tests.testutils.PrometheusCluster;
import io.zerolayer.tests.testutils.StreamingJobExtension;
import io.zerolayer.tests.testutils.TestTenants;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * One tenant floods the job at five times what it can answer while another sends at a tenth of it:
 * every quiet request is answered, nothing of either tenant is lost, and the flood's rejections say
 * why and when to retry. How fast the quiet tenant is answered beside the flood is a latency
 * figure, measured by {@code zerolayer bench}'s noisy-neighbour phase, not here.
 */
class NoisyNeighbourITCase {
    private static final int SLOTS = 2;

    /** Quiet requests sent beside the flood. */
    private static final int QUIET_REQUESTS = 40;

    private static final PrometheusCluster METRICS = new PrometheusCluster(9360, 9369);

    @RegisterExtension
    @Order(1)
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    @RegisterExtension
    @Order(2)
    static final MiniClusterExtension FLINK = METRICS.extension(SLOTS);

    @RegisterExtension
    @Order(3)
    static final StreamingJobExtension JOB = new StreamingJobExtension(KAFKA, SLOTS, METRICS);

    @Test
    void aFloodingTenantIsRefusedBeyondItsQuotaWithWhyAndNothingOfEitherIsLost(@TempDir Path dir)
            throws Exception {
        Path tenants = dir.resolve("tenants.yaml");
        Files.writeString(
                tenants,
                """
                version: 1
                tenants:
                  flood:
                    keys: {k1: "%s"}
                    quotas: {in-flight-per-slot: 8, over-quota: reject}
                  quiet:
                    keys: {k1: "%s"}
                """
                        .formatted(hex("flood"), hex("quiet")));
        JOB.conf().set(TenancyOptions.TENANTS_FILE, tenants.toString());
        // the job's own sharding, which gives a flooding tenant keys of its own (the test jobs'
        // one shard a graph keeps compile counts exact elsewhere)
        JOB.conf()
                .set(ExecutorOptions.LOAD_PER_SHARD, ExecutorOptions.LOAD_PER_SHARD.defaultValue());
        JOB.conf()
                .set(
                        ExecutorOptions.REQUESTS_PER_SHARD,
                        ExecutorOptions.REQUESTS_PER_SHARD.defaultValue());
        JOB.start();
        try (ZeroLayerClient quiet = client("quiet");
                ZeroLayerClient flood = client("flood")) {
            Workload.Stream tickets = Workload.byId("customer-service").stream(7);
            // warm: sessions open and every graph compiled; then how many tickets a second the
            // job answers
            burst(quiet, tickets, "warm", 40);
            long t0 = System.nanoTime();
            burst(quiet, tickets, "burst", 80);
            double capacity = 80 / ((System.nanoTime() - t0) / 1e9);

            List<CompletableFuture<AnalysisResponse>> flooded =
                    Collections.synchronizedList(new ArrayList<>());
            Thread flooder =
                    new Thread(
                            () ->
                                    send(
                                            flood,
                                            Workload.byId("customer-service").stream(11),
                                            capacity * 5,
                                            // from before the quiet phase to past its end
                                            Duration.ofMillis(
                                                    (long) (QUIET_REQUESTS / (capacity / 10) * 1000)
                                                            + 3_000),
                                            flooded));
            flooder.start();
            // the flood is under way: a second's worth of it sent, and refusals coming back
            // (a synchronized list is streamed under its lock: the flooder adds meanwhile)
            await().atMost(Duration.ofSeconds(60))
                    .until(
                            () -> {
                                synchronized (flooded) {
                                    return flooded.size() >= capacity
                                            && flooded.stream().anyMatch(f -> f.isDone());
                                }
                            });
            quietAt(quiet, tickets, capacity / 10, QUIET_REQUESTS, "beside");
            flooder.join();

            List<AnalysisResponse> floodAnswers = new ArrayList<>();
            for (CompletableFuture<AnalysisResponse> f : flooded) {
                floodAnswers.add(f.get(180, TimeUnit.SECONDS)); // none lost
            }
            List<AnalysisResponse> refused =
                    floodAnswers.stream()
                            .filter(r -> r.getStatus() == ResponseStatus.REJECTED)
                            .toList();
            assertThat(refused).as("the flood is refused beyond its quota").isNotEmpty();
            assertThat(floodAnswers)
                    .as("flood requests answered")
                    .allMatch(
                            r ->
                                    r.getStatus() == ResponseStatus.OK
                                            || r.getStatus() == ResponseStatus.REJECTED);
            assertThat(refused)
                    .allSatisfy(
                            r ->
                                    assertThat(r.getDiagnostics())
                                            .singleElement()
                                            .satisfies(
                                                    d -> {
                                                        assertThat(d.getCode())
                                                                .isEqualTo(
                                                                        DiagnosticCodes.OVER_QUOTA);
                                                        assertThat(d.getMessage())
                                                                .contains("in-flight-per-slot");
                                                        assertThat(d.getHint())
                                                                .matches("retry-after-ms=\\d+");
                                                    }));
        }
    }

    /** Sends {@code count} quiet requests at once and waits for their answers. */
    private static void burst(
            ZeroLayerClient client, Workload.Stream tickets, String phase, int count)
            throws Exception {
        List<CompletableFuture<AnalysisResponse>> all = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            all.add(client.submit(request("quiet", phase + "-" + i, tickets.next())));
        }
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(180, TimeUnit.SECONDS);
    }

    /** Sends {@code count} quiet requests at {@code perSecond} and waits for each to be OK. */
    private static void quietAt(
            ZeroLayerClient client,
            Workload.Stream tickets,
            double perSecond,
            int count,
            String phase)
            throws Exception {
        List<CompletableFuture<AnalysisResponse>> answers = new ArrayList<>();
        long start = System.nanoTime();
        for (int i = 0; i < count; i++) {
            long at = start + (long) (i * 1e9 / perSecond);
            LockSupport.parkNanos(at - System.nanoTime());
            answers.add(client.submit(request("quiet", phase + "-" + i, tickets.next())));
        }
        for (CompletableFuture<AnalysisResponse> f : answers) {
            assertThat(f.get(180, TimeUnit.SECONDS).getStatus())
                    .as("a quiet request")
                    .isEqualTo(ResponseStatus.OK);
        }
    }

    private static void send(
            ZeroLayerClient client,
            Workload.Stream stream,
            double perSecond,
            Duration length,
            List<CompletableFuture<AnalysisResponse>> into) {
        long start = System.nanoTime();
        for (long k = 0; ; k++) {
            long at = start + (long) (k * 1e9 / perSecond);
            if (at - start >= length.toNanos()) {
                return;
            }
            LockSupport.parkNanos(at - System.nanoTime());
            into.add(client.submit(request("flood", "flood-" + k, stream.next())));
        }
    }

    private static AnalysisRequest request(String tenant, String id, Workload.Request r) {
        return AnalysisRequest.newBuilder()
                .setRequestId(id)
                .setTenantId(tenant)
                .setPrompt(r.prompt())
                .setSubmittedAt(Instant.now())
                .setAttributes(r.attributes())
                .build();
    }

    private ZeroLayerClient client(String tenant) {
        return ZeroLayerClient.builder()
                .bootstrapServers(KAFKA.bootstrapServers())
                .requestsTopic(JOB.conf().get(KafkaOptions.REQUESTS_TOPIC))
                .replyTopic(EmbeddedKafkaExtension.freshTopic(JOB.replyTopic(tenant) + ".client"))
                .credentials(TestTenants.credentials(tenant))
                .timeout(Duration.ofMinutes(3))
                .build();
    }

    private static String hex(String tenant) {
        return HexFormat.of().formatHex(TestTenants.key(tenant));
    }
}
