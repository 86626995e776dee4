package io.zerolayer.tests;

import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.cli.ZeroLayerCli;
import io.zerolayer.embedded.EmbeddedKafkaBroker;
import io.zerolayer.jobs.JobTopic;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code zerolayer topics create} on a real broker: it makes every topic the job checks for, with
 * the settings the job relies on, leaves existing ones alone, names one whose settings are wrong
 * with the command that fixes it, and changes nothing the second time.
 */
class TopicsCommandITCase {

    private record Run(int exit, String out) {}

    private static Run topics(String... args) {
        StringWriter out = new StringWriter();
        CommandLine cli = new CommandLine(new ZeroLayerCli());
        cli.setOut(new PrintWriter(out, true));
        String[] full = new String[args.length + 2];
        full[0] = "topics";
        full[1] = "create";
        System.arraycopy(args, 0, full, 2, args.length);
        return new Run(cli.execute(full), out.toString());
    }

    @Test
    void aDryRunPrintsKafkasOwnCommandForEveryTopicTheJobChecks() {
        Run run =
                topics(
                        "--bootstrap-servers",
                        "kafka:9092",
                        "--command-config",
                        "admin.properties",
                        "--partitions",
                        "4",
                        "--dry-run");
        assertThat(run.exit()).isZero();
        List<JobTopic> expected = JobTopic.of(new Configuration(), 4);
        assertThat(run.out().lines())
                .containsExactlyElementsOf(
                        expected.stream()
                                .map(
                                        t ->
                                                t.createCommand(
                                                        "kafka:9092",
                                                        "admin.properties",
                                                        (short) -1))
                                .toList());
        assertThat(run.out())
                .contains(
                        "kafka-topics.sh --bootstrap-server kafka:9092 --command-config"
                                + " admin.properties --create --topic zerolayer.requests"
                                + " --partitions 4 --config message.timestamp.type=LogAppendTime");
    }

    @Test
    void itCreatesWhatIsMissingNamesWhatIsWrongAndIsIdempotent() throws Exception {
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(null);
                Admin admin = Admin.create(broker.adminConnection().properties())) {
            String servers = broker.bootstrapServers();
            // a requests topic someone made by hand: one partition, the producer's timestamps
            admin.createTopics(List.of(new NewTopic("zerolayer.requests", 1, (short) 1)))
                    .all()
                    .get();

            Run first = topics("--bootstrap-servers", servers, "--partitions", "2");
            assertThat(first.exit()).as(first.out()).isOne();
            assertThat(first.out())
                    .contains(
                            "WRONG   zerolayer.requests           lacks"
                                    + " message.timestamp.type=LogAppendTime")
                    .contains(
                            "kafka-configs.sh --bootstrap-server "
                                    + servers
                                    + " --alter --entity-type topics --entity-name"
                                    + " zerolayer.requests --add-config"
                                    + " message.timestamp.type=LogAppendTime")
                    .contains("zerolayer.requests has 1 partition(s) for 2 executor slot(s)")
                    .contains("created zerolayer.graphs")
                    .contains("zerolayer tenants sync");
            List<JobTopic> topics = JobTopic.of(new Configuration(), 2);
            // what the job checks before it starts now passes
            JobTopic.requireAll(
                    topics, admin.listTopics().names().get(30, TimeUnit.SECONDS), servers);
            Map<String, String> graphs = configs(admin, "zerolayer.graphs");
            assertThat(graphs).containsEntry("cleanup.policy", "compact");
            assertThat(configs(admin, "zerolayer.audit"))
                    .containsEntry("retention.ms", "-1")
                    .containsEntry("retention.bytes", "-1");
            assertThat(
                            admin.describeTopics(List.of("zerolayer.kernel-costs"))
                                    .allTopicNames()
                                    .get()
                                    .get("zerolayer.kernel-costs")
                                    .partitions())
                    .hasSize(2);

            // the fix it printed, as kafka-configs.sh would apply it
            ConfigResource requests =
                    new ConfigResource(ConfigResource.Type.TOPIC, "zerolayer.requests");
            admin.incrementalAlterConfigs(
                            Map.of(
                                    requests,
                                    List.of(
                                            new AlterConfigOp(
                                                    new ConfigEntry(
                                                            "message.timestamp.type",
                                                            "LogAppendTime"),
                                                    AlterConfigOp.OpType.SET))))
                    .all()
                    .get();
            Run second = topics("--bootstrap-servers", servers, "--partitions", "2");
            assertThat(second.exit()).as(second.out()).isZero();
            assertThat(second.out()).doesNotContain("created").doesNotContain("WRONG");
            assertThat(second.out().lines().filter(l -> l.startsWith("exists  ")))
                    .hasSize(topics.size());

            // with the tenant registry, each tenant's reply topic too (a broker without ACLs,
            // where tenants sync cannot run)
            java.nio.file.Path registry = java.nio.file.Files.createTempFile("tenants", ".yaml");
            java.nio.file.Files.writeString(
                    registry,
                    io.zerolayer.operators.tenants.TenantRegistry.yamlOf(
                            Map.of("acme", new byte[32], "globex", new byte[32])));
            Run third =
                    topics(
                            "--bootstrap-servers",
                            servers,
                            "--partitions",
                            "2",
                            "--tenants-file",
                            registry.toString());
            assertThat(third.exit()).as(third.out()).isZero();
            assertThat(third.out())
                    .contains("created zerolayer.replies.acme")
                    .contains("created zerolayer.replies.globex")
                    .doesNotContain("tenants sync");
            assertThat(admin.listTopics().names().get())
                    .contains("zerolayer.replies.acme", "zerolayer.replies.globex");
        }
    }

    private static Map<String, String> configs(Admin admin, String topic) throws Exception {
        ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        Map<String, String> out = new java.util.HashMap<>();
        admin.describeConfigs(List.of(r))
                .all()
                .get()
                .get(r)
                .entries()
                .forEach(e -> out.put(e.name(), e.value()));
        return out;
    }
}
