package io.zerolayer.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import io.zerolayer.client.ZeroLayerClient;
import io.zerolayer.embedded.DemoTenant;
import io.zerolayer.embedded.EmbeddedPipeline;
import io.zerolayer.jobs.KafkaOptions;
import io.zerolayer.jobs.TenancyOptions;
import io.zerolayer.operators.flink.ControlCommand;
import io.zerolayer.operators.tenants.TenantRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The noisy-neighbour phase: tenant {@value #FLOOD} sends customer-service tickets at 5 × the job's
 * maximum (or what {@code --noisy-flood} says) while tenant {@value #QUIET} sends them at 10 % of
 * it; before, the quiet tenant alone at that rate. The flood's tenant has quotas as an operator
 * would give a tenant that may use half the job: requests a second at half the job's maximum,
 * refused before their prompts are read, and a small in-flight quota per slot. What it sends beyond
 * is answered REJECTED at once; the quiet tenant's latency beside it against alone is the figure.
 * On a broker with SCRAM and ACLs (zerolayer's, as {@code serve} runs it) the flood's principal
 * also has a broker quota of the same share ({@code producer_byte_rate}): the broker throttles its
 * producer before its records are appended, so the job never sees the excess.
 */
final class NoisyNeighbours {
    static final String QUIET = "quiet";
    static final String FLOOD = "flood";

    /** The flood's quota: requests in flight per slot, enough to keep a slot's batches full. */
    static final int FLOOD_IN_FLIGHT_PER_SLOT = 16;

    /** The flood's requests-a-second quota, as a share of the job's maximum. */
    static final double FLOOD_RATE_SHARE = 0.5;

    private final Path file;
    private final Map<String, byte[]> keys;
    private final TenantRegistry registry;

    private NoisyNeighbours(Path file, Map<String, byte[]> keys) throws IOException {
        this.file = file;
        this.keys = keys;
        writeTenants(0, 0);
        this.registry = TenantRegistry.load(file);
    }

    /**
     * Makes {@code conf}'s job verify the demo tenant and the two neighbours; the flood's
     * requests-a-second quota is set once the job's maximum is known ({@link #measure}).
     */
    static NoisyNeighbours configure(Configuration conf) throws IOException {
        Path file = Files.createTempFile("zerolayer-bench-tenants", ".yaml");
        file.toFile().deleteOnExit();
        SecureRandom random = new SecureRandom();
        Map<String, byte[]> keys = new LinkedHashMap<>();
        for (String tenant : new String[] {DemoTenant.ID, QUIET, FLOOD}) {
            byte[] key = new byte[32];
            random.nextBytes(key);
            keys.put(tenant, key);
        }
        conf.set(TenancyOptions.TENANTS_FILE, file.toString());
        return new NoisyNeighbours(file, keys);
    }

    /**
     * Writes the tenants file, the flood's quota {@code floodPerSecond} requests a second, and on
     * the broker {@code floodBytesPerSecond} (0: none).
     */
    private void writeTenants(long floodPerSecond, long floodBytesPerSecond) throws IOException {
        StringBuilder yaml = new StringBuilder("version: 1\ntenants:\n");
        keys.forEach(
                (tenant, key) -> {
                    yaml.append("  ")
                            .append(tenant)
                            .append(":\n    keys: {k1: \"")
                            .append(HexFormat.of().formatHex(key))
                            .append("\"}\n");
                    if (tenant.equals(FLOOD)) {
                        yaml.append("    quotas: {in-flight-per-slot: ")
                                .append(FLOOD_IN_FLIGHT_PER_SLOT)
                                .append(
                                        floodPerSecond > 0
                                                ? ", requests-per-second: " + floodPerSecond
                                                : "")
                                .append(
                                        floodBytesPerSecond > 0
                                                ? ", kafka-produce-bytes-per-second: "
                                                        + floodBytesPerSecond
                                                : "")
                                .append(", over-quota: reject}\n");
                    }
                });
        Files.writeString(file, yaml);
    }

    /**
     * Gives the flood its rate quota on the running job and, as bytes a second, on the broker: the
     * file rewritten, synced to the broker, then reloaded by the job.
     */
    private void limitFlood(EmbeddedPipeline pipeline, Configuration conf, long perSecond)
            throws Exception {
        writeTenants(perSecond, perSecond * bytesPerRequest());
        pipeline.syncTenants();
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(
                        // only the broker's admin writes the control topic
                        pipeline.adminConnection().properties(),
                        new ByteArraySerializer(),
                        new ByteArraySerializer())) {
            producer.send(
                            new ProducerRecord<>(
                                    conf.get(KafkaOptions.CONTROL_TOPIC),
                                    new ControlCommand(ControlCommand.RELOAD_TENANTS, null)
                                            .toJson()))
                    .get();
        }
        Thread.sleep(2_000); // every classifier subtask reads the file again
    }

    /** Runs the phases at {@code max}, zerolayer's customer-service maximum, into {@code rows}. */
    void measure(
            BenchPlan plan,
            EmbeddedPipeline pipeline,
            Configuration conf,
            double max,
            ArrayNode rows)
            throws Exception {
        double quietRate = Math.max(0.5, max / 10);
        double floodRate = max * plan.noisyFlood();
        long floodQuota = Math.max(1, Math.round(max * FLOOD_RATE_SHARE));
        limitFlood(pipeline, conf, floodQuota);
        double seconds = plan.openLoopSeconds();
        try (ZeroLayerClient quiet = client(pipeline, conf, QUIET);
                ZeroLayerClient flood = client(pipeline, conf, FLOOD)) {
            LoadDriver quietDriver = new LoadDriver(quiet, QUIET);
            LoadDriver floodDriver = new LoadDriver(flood, FLOOD);
            BenchWorker.progress(
                    plan.system(),
                    String.format(
                            Locale.ROOT,
                            "noisy neighbour: quiet tenant alone at %.1f/s",
                            quietRate));
            LoadDriver.Phase alone =
                    quietDriver.openLoop(
                            Workload.CUSTOMER_SERVICE.stream(plan.seed() + 31),
                            quietRate,
                            2,
                            seconds);
            rows.add(BenchWorker.row(BenchWorker.QUIET_ALONE, 0.1, 0, alone));
            BenchWorker.report(plan.system(), alone);

            BenchWorker.progress(
                    plan.system(),
                    String.format(
                            Locale.ROOT,
                            "noisy neighbour: flood at %.1f/s (its quota %d/s) beside the quiet"
                                    + " tenant at %.1f/s",
                            floodRate,
                            floodQuota,
                            quietRate));
            CompletableFuture<LoadDriver.Phase> flooding =
                    CompletableFuture.supplyAsync(
                            () ->
                                    floodDriver.openLoop(
                                            Workload.CUSTOMER_SERVICE.stream(plan.seed() + 37),
                                            floodRate,
                                            2,
                                            seconds));
            Thread.sleep(2_000); // the flood under way first
            LoadDriver.Phase beside =
                    quietDriver.openLoop(
                            Workload.CUSTOMER_SERVICE.stream(plan.seed() + 41),
                            quietRate,
                            0,
                            seconds);
            LoadDriver.Phase flooded = flooding.get();
            rows.add(BenchWorker.row(BenchWorker.QUIET_BESIDE_FLOOD, 0.1, 0, beside));
            BenchWorker.report(plan.system(), beside);
            rows.add(BenchWorker.row(BenchWorker.FLOOD, 5, 0, flooded));
            BenchWorker.report(plan.system(), flooded);
        }
    }

    /**
     * What a customer-service request takes on the wire, about: its prompt's bytes, the rest of the
     * record, headers and batch overhead. Sets the flood's broker quota from its request quota.
     */
    static long bytesPerRequest() {
        long prompt =
                Workload.CUSTOMER_SERVICE.take(1, 16).stream()
                                .mapToLong(r -> r.prompt().getBytes(StandardCharsets.UTF_8).length)
                                .sum()
                        / 16;
        return prompt + 512;
    }

    private ZeroLayerClient client(EmbeddedPipeline pipeline, Configuration conf, String tenant) {
        return ZeroLayerClient.builder()
                .bootstrapServers(pipeline.bootstrapServers())
                .kafkaSettings(pipeline.kafkaSettings(tenant))
                .requestsTopic(conf.get(KafkaOptions.REQUESTS_TOPIC))
                .credentials(registry.credentials(tenant))
                .timeout(Duration.ofMinutes(5))
                .build();
    }
}
