package io.zerolayer.tests;

import io.zerolayer.cluster.LocalCluster;
import io.zerolayer.embedded.DemoTenant;
import io.zerolayer.tests.testutils.BuiltArtifacts;
import io.zerolayer.tests.testutils.SampleAnswers;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * What {@code zerolayer cluster up} runs, as its README-style use has it: a broker process with
 * SASL/SCRAM and ACLs, a JobManager and a TaskManager on the documented lib, the job submitted
 * through the REST API with nothing but its broker's address, and the samples answered to the demo
 * tenant with the client settings and tenants file the cluster printed. {@link
 * TwoTaskManagerClusterITCase} covers a cluster of one's own; this covers the project's helper.
 */
class LocalClusterITCase {
    @Test
    void clusterUpAnswersTheSamplesToItsDemoTenant() throws Exception {
        Path home = Path.of("target", "local-cluster-it-" + UUID.randomUUID());
        try (LocalCluster cluster =
                LocalCluster.builder()
                        .home(home)
                        .flinkLib(BuiltArtifacts.flinkLib())
                        .appClasspath(System.getProperty("java.class.path"))
                        .taskManagers(1)
                        .slotsPerTaskManager(2)
                        .restPort(LocalCluster.freePort())
                        // what cluster up passes on from flink-conf/config.yaml
                        .settingsFrom(
                                org.apache.flink.configuration.GlobalConfiguration
                                        .loadConfiguration(Path.of("..", "flink-conf").toString()))
                        .setting("metrics.reporter.prom.port", "9380-9389")
                        .build()) {
            cluster.start();
            String job =
                    cluster.rest()
                            .submit(
                                    BuiltArtifacts.jobJar(),
                                    List.of(
                                            "run",
                                            "--bootstrap-servers",
                                            cluster.bootstrapServers()),
                                    2,
                                    null);
            cluster.rest().awaitRunning(job, Duration.ofSeconds(180));

            SampleAnswers.submit(
                            cluster.bootstrapServers(),
                            cluster.kafkaSettingsFile(DemoTenant.ID),
                            DemoTenant.ID,
                            cluster.home().resolve(DemoTenant.FILE))
                    .assertEveryOneAnswered();
        }
    }
}
