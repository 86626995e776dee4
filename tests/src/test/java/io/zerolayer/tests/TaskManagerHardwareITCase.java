package io.zerolayer.tests;

import static io.zerolayer.tests.testutils.EmbeddedKafkaExtension.freshTopic;
import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.jobs.ExecutorOptions;
import io.zerolayer.jobs.HardwareOptions;
import io.zerolayer.jobs.KafkaOptions;
import io.zerolayer.jobs.StreamingJob;
import io.zerolayer.jobs.TenancyOptions;
import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.AnalysisResponse;
import io.zerolayer.schemas.ExecutionGraph;
import io.zerolayer.schemas.ZeroLayerHeaders;
import io.zerolayer.schemas.serde.SingleObjectCodec;
import io.zerolayer.tests.testutils.EmbeddedKafkaExtension;
import io.zerolayer.tests.testutils.TestTenants;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A TaskManager whose own configuration names its hardware profile compiles for that profile,
 * whatever the job says (here: detect): how a mixed cluster, whose machines detection cannot tell
 * apart, is described.
 */
class TaskManagerHardwareITCase {
    @RegisterExtension
    @Order(1)
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    @RegisterExtension
    @Order(2)
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(1)
                            .setConfiguration(taskManagerNamingItsHardware())
                            .build());

    private static Configuration taskManagerNamingItsHardware() {
        Configuration c = new Configuration();
        c.set(HardwareOptions.HARDWARE_PROFILE, "cpu-generic");
        // a reporter range of this class's own, for status to discover through the REST API
        c.setString(
                "metrics.reporter.prom.factory.class",
                "org.apache.flink.metrics.prometheus.PrometheusReporterFactory");
        c.setString("metrics.reporter.prom.port", "9330-9339");
        return c;
    }

    @Test
    void theTaskManagersOwnProfileIsWhatItsGraphsAreCompiledFor(
            @org.apache.flink.test.junit5.InjectClusterRESTAddress java.net.URI rest)
            throws Exception {
        Configuration job = new Configuration();
        job.set(KafkaOptions.BOOTSTRAP_SERVERS, KAFKA.bootstrapServers());
        job.set(TenancyOptions.TENANTS_FILE, TestTenants.file().toString());
        job.set(KafkaOptions.TRANSACTIONAL_ID_PREFIX, freshTopic("tx"));
        job.set(KafkaOptions.GROUP_ID, freshTopic("group"));
        job.set(ExecutorOptions.CHECKPOINT_INTERVAL, Duration.ofMillis(500));
        KAFKA.createFreshJobTopics(job, 1);
        job.set(ExecutorOptions.PRECOMPILE_FILE, ExecutorOptions.NO_PRECOMPILE);
        assertThat(job.get(HardwareOptions.HARDWARE_PROFILE)).isEqualTo("auto");

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        StreamingJob.define(env, job);
        JobClient running = env.executeAsync(StreamingJob.JOB_NAME);
        try {
            KAFKA.send(
                    job.get(KafkaOptions.REQUESTS_TOPIC),
                    null,
                    SingleObjectCodec.of(AnalysisRequest.class)
                            .encode(
                                    AnalysisRequest.newBuilder()
                                            .setRequestId("r")
                                            .setTenantId("t")
                                            .setPrompt("<task:embed> The pump failed.")
                                            .setSubmittedAt(Instant.now())
                                            .setAttributes(Map.of())
                                            .build()),
                    ZeroLayerHeaders.CORRELATION_ID,
                    "c");
            ConsumerRecord<byte[], byte[]> reply =
                    KAFKA.read(
                                    EmbeddedKafkaExtension.replies(job),
                                    1,
                                    Duration.ofSeconds(120),
                                    Duration.ZERO)
                            .get(0);
            String graphId =
                    SingleObjectCodec.of(AnalysisResponse.class).decode(reply.value()).getGraphId();
            ExecutionGraph descriptor =
                    KAFKA
                            .readUntil(
                                    job.get(KafkaOptions.GRAPHS_TOPIC),
                                    r -> true,
                                    Duration.ofSeconds(60))
                            .stream()
                            .map(r -> SingleObjectCodec.of(ExecutionGraph.class).decode(r.value()))
                            .filter(g -> g.getGraphId().equals(graphId))
                            .findFirst()
                            .orElseThrow();
            assertThat(descriptor.getHardwareProfile()).startsWith("cpu-generic@");

            // status finds the TaskManager's metrics from the REST address alone
            java.io.PrintStream stdout = System.out;
            java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
            System.setOut(new java.io.PrintStream(captured, true));
            int exit;
            try {
                exit =
                        io.zerolayer.cli.ZeroLayerCli.commandLine()
                                .execute("status", "--rest-url", rest.toString());
            } finally {
                System.setOut(stdout);
            }
            assertThat(captured.toString())
                    .startsWith("WARM: 1 of 1 executor slot(s) ready")
                    .contains("requests: 1 in");
            assertThat(exit).isZero();
        } finally {
            running.cancel().get();
        }
    }
}
