package io.zerolayer.tests;

import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.cluster.LocalCluster;
import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.KernelCostRecord;
import io.zerolayer.schemas.ZeroLayerHeaders;
import io.zerolayer.schemas.serde.SingleObjectCodec;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The job on a real multi-process Flink cluster (a JobManager and two TaskManagers from Flink's own
 * entry points, a broker process), submitted through the REST API as a user would: a TaskManager
 * killed with SIGKILL while requests are in flight loses nothing and answers nothing twice, and
 * after stop-with-savepoint a second job on the same TaskManagers loads the natives and answers.
 */
class ClusterITCase {
    private static final Path JAR = Path.of("..", "jobs", "target", "zerolayer-flink.jar");
    private static final Path FLINK_LIB = Path.of("..", "flink-lib", "target", "lib");
    private static final String REPLIES = "zerolayer.replies.cluster-it";
    private static final int REQUESTS = 150;
    private static final SingleObjectCodec<AnalysisRequest> CODEC =
            SingleObjectCodec.of(AnalysisRequest.class);

    private static LocalCluster cluster;

    @BeforeAll
    static void startCluster() throws Exception {
        Assumptions.assumeTrue(
                Files.exists(JAR) && Files.isDirectory(FLINK_LIB),
                "build the jobs and flink-lib modules first (mvn package)");
        cluster =
                LocalCluster.builder()
                        .home(Path.of("target", "cluster-it-" + UUID.randomUUID()))
                        .flinkLib(FLINK_LIB)
                        .appClasspath(System.getProperty("java.class.path"))
                        .taskManagers(2)
                        .slotsPerTaskManager(1)
                        .restPort(freePort())
                        .setting("zerolayer.checkpoint-interval", "1 s")
                        .setting("heartbeat.interval", "1000")
                        .setting("heartbeat.timeout", "8000")
                        .setting(
                                "metrics.reporter.prom.factory.class",
                                "org.apache.flink.metrics.prometheus.PrometheusReporterFactory")
                        .setting("metrics.reporter.prom.port", "9340-9349")
                        .build();
        cluster.start();
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(REPLIES, 1, (short) 1))).all().get();
        }
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aKilledTaskManagerLosesNothingAndASecondJobOnTheSameTaskManagersRuns() throws Exception {
        List<String> run = List.of("run", "--bootstrap-servers", cluster.bootstrapServers());
        String job = cluster.submit(JAR, run, 2, null);
        cluster.awaitRunning(job, Duration.ofSeconds(180));

        send(0, REQUESTS);
        Map<String, Integer> beforeKill = replies(1, Duration.ofSeconds(120));
        cluster.killTaskManager(0);
        cluster.startTaskManager();
        assertThat(beforeKill.size()).as("answered before the kill").isLessThan(REQUESTS);

        Map<String, Integer> replies = replies(REQUESTS, Duration.ofSeconds(240));
        Thread.sleep(3000); // a duplicate would be committed by now
        replies = replies(REQUESTS, Duration.ofSeconds(10));
        assertThat(replies).hasSize(REQUESTS);
        assertThat(replies.values()).as("replies per request").containsOnly(1);
        Map<String, Integer> costIds = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : committed("zerolayer.kernel-costs")) {
            KernelCostRecord c = SingleObjectCodec.of(KernelCostRecord.class).decode(r.value());
            costIds.merge(c.getRecordId(), 1, Integer::sum);
        }
        assertThat(costIds).isNotEmpty();
        assertThat(costIds.values()).as("cost records per id").containsOnly(1);

        // an upgrade: stop with a savepoint, start again from it on the same TaskManagers
        String savepoint = cluster.stopWithSavepoint(job, Duration.ofSeconds(120));
        String second = cluster.submit(JAR, run, 2, savepoint);
        cluster.awaitRunning(second, Duration.ofSeconds(180));
        send(REQUESTS, 1);
        assertThat(replies(REQUESTS + 1, Duration.ofSeconds(120))).hasSize(REQUESTS + 1);
        assertThat(cluster.jobState(second)).isEqualTo("RUNNING");
    }

    private static void send(int from, int count) {
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(
                        Map.of("bootstrap.servers", cluster.bootstrapServers()),
                        new ByteArraySerializer(),
                        new ByteArraySerializer())) {
            for (int i = from; i < from + count; i++) {
                ProducerRecord<byte[], byte[]> r =
                        new ProducerRecord<>("zerolayer.requests", CODEC.encode(request(i)));
                r.headers().add(ZeroLayerHeaders.REPLY_TOPIC, REPLIES.getBytes());
                r.headers().add(ZeroLayerHeaders.CORRELATION_ID, ("c-" + i).getBytes());
                producer.send(r);
            }
        }
    }

    private static AnalysisRequest request(int i) {
        StringBuilder text = new StringBuilder();
        for (int s = 0; s < 60; s++) {
            text.append("Turbine ")
                    .append(i)
                    .append(" logged vibration level ")
                    .append(s * 7 % 13)
                    .append(" at hour ")
                    .append(s)
                    .append(" of the inspection. ");
        }
        return AnalysisRequest.newBuilder()
                .setRequestId("cluster-" + i)
                .setTenantId(i % 2 == 0 ? "acme" : "globex")
                .setPrompt("<task:summarize sentences=\"2\"><output_format:json>" + text)
                .setSubmittedAt(Instant.now())
                .setAttributes(Map.of())
                .build();
    }

    /** Committed replies per correlation id, once at least {@code count} requests have one. */
    private static Map<String, Integer> replies(int count, Duration timeout) {
        Map<String, Integer> perRequest = new HashMap<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            perRequest.clear();
            for (ConsumerRecord<byte[], byte[]> r : committed(REPLIES)) {
                Header h = r.headers().lastHeader(ZeroLayerHeaders.CORRELATION_ID);
                perRequest.merge(new String(h.value(), StandardCharsets.UTF_8), 1, Integer::sum);
            }
            if (perRequest.size() >= count) {
                break;
            }
        }
        return perRequest;
    }

    /** Every committed record of a topic's partitions (read_committed), read to their end. */
    private static List<ConsumerRecord<byte[], byte[]>> committed(String topic) {
        Properties p = new Properties();
        p.put("bootstrap.servers", cluster.bootstrapServers());
        p.put("isolation.level", "read_committed");
        List<ConsumerRecord<byte[], byte[]>> out = new java.util.ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions =
                    consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                            .map(i -> new TopicPartition(topic, i.partition()))
                            .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))
                    && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(out::add);
            }
        }
        return out;
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
