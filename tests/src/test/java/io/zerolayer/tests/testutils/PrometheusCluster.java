package io.zerolayer.tests.testutils;

import java.nio.charset.StandardCharsets;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;

/**
 * A test MiniCluster whose Prometheus reporter takes a port of its own range, so a test can read
 * the metrics its job reports, and whose REST API tells when a job's checkpoint completed. Give
 * each test class a range of its own.
 */
public final class PrometheusCluster {
    private final int firstPort;
    private final int lastPort;
    private MiniClusterExtension extension;

    public PrometheusCluster(int firstPort, int lastPort) {
        this.firstPort = firstPort;
        this.lastPort = lastPort;
    }

    /** One TaskManager with {@code slots} slots and the reporter on this range. */
    public MiniClusterExtension extension(int slots) {
        Configuration c = new Configuration();
        c.setString(
                "metrics.reporter.prom.factory.class",
                "org.apache.flink.metrics.prometheus.PrometheusReporterFactory");
        c.setString("metrics.reporter.prom.port", firstPort + "-" + lastPort);
        extension =
                new MiniClusterExtension(
                        new MiniClusterResourceConfiguration.Builder()
                                .setNumberTaskManagers(1)
                                .setNumberSlotsPerTaskManager(slots)
                                .setConfiguration(c)
                                .build());
        return extension;
    }

    /**
     * Waits until a checkpoint of {@code job} that started after this call has completed: what the
     * job wrote before the call is then committed, and a duplicate of it would be visible.
     */
    public void awaitCheckpointAfterNow(JobID job) throws Exception {
        JobCheckpoints.awaitAfterNow(extension, job);
    }

    /** Every metric line served on the range now. */
    public String scrape() {
        StringBuilder all = new StringBuilder();
        for (int port = firstPort; port <= lastPort; port++) {
            try (var in =
                    java.net
                            .URI
                            .create("http://localhost:" + port + "/metrics")
                            .toURL()
                            .openStream()) {
                all.append(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            } catch (java.io.IOException nothingThere) {
                // not a port the reporter took
            }
        }
        return all.toString();
    }

    /**
     * The sum of metric {@code name} over every series whose labels include all of {@code labels}
     * (each as {@code key="value"}), served on the range now.
     */
    public double sum(String name, String... labels) {
        double total = 0;
        for (String line : scrape().split("\n")) {
            if (!line.startsWith(name + "{")) {
                continue;
            }
            boolean all = true;
            for (String label : labels) {
                all &= line.contains(label);
            }
            if (all) {
                total += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return total;
    }
}
