package io.zerolayer.tests;

import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.cluster.LocalCluster;
import io.zerolayer.schemas.KernelCostRecord;
import io.zerolayer.schemas.serde.SingleObjectCodec;
import io.zerolayer.tests.testutils.InFlightLoad;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
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

    private static LocalCluster cluster;
    private static InFlightLoad load;

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
        load = new InFlightLoad(cluster.bootstrapServers(), REPLIES, 60);
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

        load.send(0, REQUESTS);
        Map<String, Integer> beforeKill = load.replies(1, Duration.ofSeconds(120));
        cluster.killTaskManager(0);
        cluster.startTaskManager();
        assertThat(beforeKill.size()).as("answered before the kill").isLessThan(REQUESTS);

        Map<String, Integer> replies = load.replies(REQUESTS, Duration.ofSeconds(240));
        Thread.sleep(3000); // a duplicate would be committed by now
        replies = load.replies(REQUESTS, Duration.ofSeconds(10));
        assertThat(replies).hasSize(REQUESTS);
        assertThat(replies.values()).as("replies per request").containsOnly(1);
        Map<String, Integer> costIds = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : load.committed("zerolayer.kernel-costs")) {
            KernelCostRecord c = SingleObjectCodec.of(KernelCostRecord.class).decode(r.value());
            costIds.merge(c.getRecordId(), 1, Integer::sum);
        }
        assertThat(costIds).isNotEmpty();
        assertThat(costIds.values()).as("cost records per id").containsOnly(1);

        // an upgrade: stop with a savepoint, start again from it on the same TaskManagers
        String savepoint = cluster.stopWithSavepoint(job, Duration.ofSeconds(120));
        String second = cluster.submit(JAR, run, 2, savepoint);
        cluster.awaitRunning(second, Duration.ofSeconds(180));
        load.send(REQUESTS, 1);
        assertThat(load.replies(REQUESTS + 1, Duration.ofSeconds(120))).hasSize(REQUESTS + 1);
        assertThat(cluster.jobState(second)).isEqualTo("RUNNING");
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
