package io.zerolayer.tests.testutils;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The test JVM's MiniCluster, shared by the ITCases that need no cluster of their own: one
 * TaskManager of {@link #SLOTS} slots, started once per test JVM. Its Prometheus reporter takes a
 * port of this JVM's range (by surefire's fork number), so a test reads the metrics its own job
 * reports; its REST API tells when a job's checkpoint completed. Each test class starts with no job
 * left on it by another.
 *
 * <pre>{@code
 * @RegisterExtension static final PrometheusCluster METRICS = PrometheusCluster.shared();
 * }</pre>
 */
public final class PrometheusCluster
        implements BeforeAllCallback, BeforeEachCallback, AfterEachCallback {
    /** Slots of the shared TaskManager: every sharing class runs its jobs on two. */
    public static final int SLOTS = 2;

    private static final PrometheusCluster JVM =
            new PrometheusCluster(Integer.getInteger("zerolayer.test.fork", 1));

    private static final ObjectMapper JSON = new ObjectMapper();

    private final int firstPort;
    private final int lastPort;
    private MiniClusterExtension cluster;

    private PrometheusCluster(int fork) {
        this.firstPort = 9400 + 20 * (fork - 1);
        this.lastPort = firstPort + 19;
    }

    /** This test JVM's cluster. */
    public static PrometheusCluster shared() {
        return JVM;
    }

    @Override
    public synchronized void beforeAll(ExtensionContext context) throws Exception {
        if (cluster == null) {
            Configuration c = new Configuration();
            c.setString(
                    "metrics.reporter.prom.factory.class",
                    "org.apache.flink.metrics.prometheus.PrometheusReporterFactory");
            c.setString("metrics.reporter.prom.port", firstPort + "-" + lastPort);
            MiniClusterExtension started =
                    new MiniClusterExtension(
                            new MiniClusterResourceConfiguration.Builder()
                                    .setNumberTaskManagers(1)
                                    .setNumberSlotsPerTaskManager(SLOTS)
                                    .setConfiguration(c)
                                    .build());
            started.beforeAll(context);
            cluster = started;
            // stopped when the test JVM exits: surefire runs each class as an execution of its
            // own, so JUnit's root store would stop it with the first class
            Runtime.getRuntime()
                    .addShutdownHook(
                            new Thread(
                                    () -> {
                                        try {
                                            started.afterAll(context);
                                        } catch (Exception e) {
                                            e.printStackTrace();
                                        }
                                    },
                                    "test-minicluster-stop"));
        }
        cancelLeftoverJobs();
    }

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        cluster.beforeEach(context); // the tests' StreamExecutionEnvironment runs jobs here
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        cluster.afterEach(context);
    }

    /**
     * Waits until a checkpoint of {@code job} that started after this call has completed: what the
     * job wrote before the call is then committed, and a duplicate of it would be visible.
     */
    public void awaitCheckpointAfterNow(JobID job) throws Exception {
        JobCheckpoints.awaitAfterNow(cluster, job);
    }

    /** Every metric line served on this JVM's range now. */
    public String scrape() {
        StringBuilder all = new StringBuilder();
        for (int port = firstPort; port <= lastPort; port++) {
            try (var in =
                    URI.create("http://localhost:" + port + "/metrics").toURL().openStream()) {
                all.append(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            } catch (java.io.IOException nothingThere) {
                // not a port the reporter took
            }
        }
        return all.toString();
    }

    /**
     * Cancels any job an earlier class left running (one whose test failed before cancelling it),
     * and waits until none runs: each class starts with every slot free.
     */
    private void cancelLeftoverJobs() throws Exception {
        Configuration client = cluster.getClientConfiguration();
        URI rest =
                URI.create(
                        "http://"
                                + client.get(RestOptions.ADDRESS)
                                + ":"
                                + client.get(RestOptions.PORT)
                                + "/");
        HttpClient http = HttpClient.newHttpClient();
        long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        while (true) {
            JsonNode jobs =
                    JSON.readTree(
                            http.send(
                                            HttpRequest.newBuilder(rest.resolve("jobs/overview"))
                                                    .build(),
                                            HttpResponse.BodyHandlers.ofString())
                                    .body());
            boolean running = false;
            for (JsonNode job : jobs.path("jobs")) {
                if (Set.of("FINISHED", "CANCELED", "FAILED").contains(job.path("state").asText())) {
                    continue;
                }
                running = true;
                http.send(
                        HttpRequest.newBuilder(
                                        rest.resolve(
                                                "jobs/"
                                                        + job.path("jid").asText()
                                                        + "?mode=cancel"))
                                .method("PATCH", HttpRequest.BodyPublishers.noBody())
                                .build(),
                        HttpResponse.BodyHandlers.discarding());
            }
            if (!running) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Jobs left on the shared MiniCluster still run");
            }
            Thread.sleep(100);
        }
    }
}
