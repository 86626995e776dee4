package io.zerolayer.cli;

import io.zerolayer.jobs.JobTopic;
import io.zerolayer.jobs.PipelineOptions;
import io.zerolayer.operators.kafka.KafkaConnection;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code zerolayer topics create}: the job's topics on a Kafka cluster of one's own. */
@Command(
        name = "topics",
        mixinStandardHelpOptions = true,
        description = "The job's topics on a Kafka cluster (docs/cluster.md).",
        subcommands = {TopicsCommand.Create.class})
final class TopicsCommand implements Runnable {
    @Override
    public void run() {
        System.err.println(
                "Usage: zerolayer topics create --bootstrap-servers H:P"
                        + " [--command-config admin.properties] [--dry-run]");
    }

    @Command(
            name = "create",
            mixinStandardHelpOptions = true,
            description = {
                "Create every topic the job reads or writes, with the shape it relies on: the"
                        + " requests stamped with the broker's append time, the graph descriptors"
                        + " compacted, the audit chains kept for ever. The list is the one the job"
                        + " checks before it starts, under the same settings (-D, --config-dir)."
                        + " A topic that exists is left as it is; one whose settings differ from"
                        + " what the job relies on is named with the command that fixes it.",
                "With verified requests and a tenants file (--tenants-file or"
                        + " zerolayer.tenants.file), each tenant's reply topic too, as zerolayer"
                        + " tenants sync makes it on a broker with ACLs. Exit 0 when every topic"
                        + " is there as the job needs it, 1 otherwise."
            })
    static final class Create implements Callable<Integer> {
        @Option(
                names = "--bootstrap-servers",
                required = true,
                description = "The Kafka cluster, reached as a user that may create topics.")
        String bootstrapServers;

        @Mixin KafkaClientFile adminClient = new KafkaClientFile();

        @Option(
                names = "--partitions",
                description =
                        "Partitions of the requests and kernel-costs topics: one per executor"
                                + " slot. Default: the settings' parallelism.default.")
        Integer partitions;

        @Option(
                names = "--replication-factor",
                defaultValue = "-1",
                description =
                        "Replicas of each topic. Default: the broker's default.replication.factor.")
        short replicationFactor;

        @Option(
                names = "--tenants-file",
                description =
                        "With verified requests, also each tenant's reply topic. Default:"
                                + " zerolayer.tenants.file, when set.")
        java.nio.file.Path tenantsFile;

        @Option(
                names = "--dry-run",
                description =
                        "Print the kafka-topics.sh command of each topic; contact no cluster.")
        boolean dryRun;

        @Mixin PipelineSettings settings;

        @Spec CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            Configuration conf = settings.load();
            int slots =
                    partitions != null
                            ? partitions
                            : Math.max(1, conf.get(CoreOptions.DEFAULT_PARALLELISM));
            List<JobTopic> topics = new ArrayList<>(JobTopic.of(conf, slots));
            java.nio.file.Path registry =
                    PipelineSettings.tenantsFile(tenantsFile, conf).orElse(null);
            boolean tenantTopics = PipelineOptions.verified(conf) && registry != null;
            if (tenantTopics) {
                topics.addAll(
                        JobTopic.tenantReplies(
                                conf,
                                io.zerolayer.operators.tenants.TenantRegistry.load(registry)
                                        .tenantIds()));
            }
            PrintWriter out = spec.commandLine().getOut();
            if (dryRun) {
                String config = adminClient.file == null ? null : adminClient.file.toString();
                topics.forEach(
                        t ->
                                out.println(
                                        t.createCommand(
                                                bootstrapServers, config, replicationFactor)));
                out.flush();
                return 0;
            }
            KafkaConnection kafka = adminClient.connection(bootstrapServers);
            try (Admin admin = Admin.create(kafka.properties())) {
                return create(
                        admin, topics, slots, PipelineOptions.verified(conf) && !tenantTopics, out);
            }
        }

        /** Creates the missing topics and checks the others; prints a line for each. */
        /**
         * @param noTenantTopics whether to say where tenants' reply topics come from
         */
        private int create(
                Admin admin,
                List<JobTopic> topics,
                int slots,
                boolean noTenantTopics,
                PrintWriter out)
                throws Exception {
            Set<String> existing = admin.listTopics().names().get(60, TimeUnit.SECONDS);
            List<JobTopic> missing =
                    topics.stream().filter(t -> !existing.contains(t.name())).toList();
            if (!missing.isEmpty()) {
                admin.createTopics(
                                missing.stream()
                                        .map(
                                                t ->
                                                        new org.apache.kafka.clients.admin.NewTopic(
                                                                        t.name(),
                                                                        t.partitions(),
                                                                        replicationFactor)
                                                                .configs(t.configs()))
                                        .toList())
                        .all()
                        .get(60, TimeUnit.SECONDS);
            }
            List<JobTopic> present =
                    topics.stream().filter(t -> existing.contains(t.name())).toList();
            Map<String, TopicDescription> described =
                    admin.describeTopics(present.stream().map(JobTopic::name).toList())
                            .allTopicNames()
                            .get(60, TimeUnit.SECONDS);
            Map<ConfigResource, Config> configs =
                    admin.describeConfigs(
                                    present.stream()
                                            .map(
                                                    t ->
                                                            new ConfigResource(
                                                                    ConfigResource.Type.TOPIC,
                                                                    t.name()))
                                            .toList())
                            .all()
                            .get(60, TimeUnit.SECONDS);
            List<String> wrong = new ArrayList<>();
            for (JobTopic t : topics) {
                if (missing.contains(t)) {
                    out.printf(
                            "created %-28s %d partition(s)%s (the job %s)%n",
                            t.name(), t.partitions(), t.configArguments(), t.reads());
                    continue;
                }
                Map<String, String> actual =
                        configs
                                .get(new ConfigResource(ConfigResource.Type.TOPIC, t.name()))
                                .entries()
                                .stream()
                                .filter(e -> e.value() != null)
                                .collect(
                                        Collectors.toMap(
                                                org.apache.kafka.clients.admin.ConfigEntry::name,
                                                org.apache.kafka.clients.admin.ConfigEntry::value));
                List<String> fix = t.missingConfigs(actual);
                int has = described.get(t.name()).partitions().size();
                if (!fix.isEmpty()) {
                    wrong.add(t.name());
                    out.printf(
                            "WRONG   %-28s lacks %s, which the job relies on; fix it with:%n"
                                    + "  kafka-configs.sh --bootstrap-server %s --alter"
                                    + " --entity-type topics --entity-name %s --add-config %s%n",
                            t.name(),
                            String.join(", ", fix),
                            bootstrapServers,
                            t.name(),
                            String.join(",", fix));
                } else {
                    out.printf("exists  %-28s %d partition(s)%n", t.name(), has);
                }
                if (t.partitions() == slots && has < slots) {
                    out.printf(
                            "        %s has %d partition(s) for %d executor slot(s): slots beyond"
                                    + " them stay idle (kafka-topics.sh --alter --partitions %d)%n",
                            t.name(), has, slots, slots);
                }
            }
            if (noTenantTopics) {
                out.println(
                        "Tenants' reply topics (zerolayer.replies.<tenant>): give --tenants-file,"
                                + " or run zerolayer tenants sync.");
            }
            out.flush();
            return wrong.isEmpty() ? 0 : 1;
        }
    }
}
