package io.zerolayer.jobs;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * A topic the streaming job reads or writes, as its configuration names it, with the shape the job
 * expects: what the embedded modes create, and what a job on an existing cluster checks before it
 * starts, so a missing topic is an error that names it and the command that creates it rather than
 * a job that fails over until someone notices.
 *
 * @param option the setting that names the topic
 * @param name the topic
 * @param partitions partitions to create it with (the requests: one per executor slot)
 * @param configs topic settings the job relies on: the graph descriptors are compacted (the latest
 *     per graph id); the requests are stamped with the broker's append time, which request
 *     signatures are checked against and no producer can choose; the audit chains are kept for ever
 * @param reads what the job does with it, for messages
 */
public record JobTopic(
        ConfigOption<String> option,
        String name,
        int partitions,
        Map<String, String> configs,
        String reads) {

    /** A compacted topic keeps the latest record per key. */
    public static final Map<String, String> COMPACTED = Map.of("cleanup.policy", "compact");

    /** The broker stamps each record with the time it appended it. */
    public static final Map<String, String> APPEND_TIME =
            Map.of("message.timestamp.type", "LogAppendTime");

    /**
     * Kept for ever and never compacted: an audit chain with an entry aged out or compacted away no
     * longer verifies.
     */
    public static final Map<String, String> KEPT_FOR_EVER =
            Map.of("cleanup.policy", "delete", "retention.ms", "-1", "retention.bytes", "-1");

    public JobTopic {
        configs = Map.copyOf(configs);
    }

    /**
     * The job's topics under {@code conf}, with {@code slots} partitions for the requests. The
     * shared responses topic is one only when requests are not verified: verified requests are
     * answered on their tenants' own topics, which {@code zerolayer tenants sync} creates.
     */
    public static List<JobTopic> of(Configuration conf, int slots) {
        List<JobTopic> topics = new ArrayList<>();
        topics.add(topic(conf, KafkaOptions.REQUESTS_TOPIC, slots, APPEND_TIME, "reads requests"));
        topics.add(topic(conf, KafkaOptions.CONTROL_TOPIC, 1, Map.of(), "reads control commands"));
        if (!PipelineOptions.verified(conf)) {
            topics.add(topic(conf, KafkaOptions.RESPONSES_TOPIC, 1, Map.of(), "writes replies"));
        }
        topics.addAll(
                List.of(
                        topic(
                                conf,
                                KafkaOptions.COSTS_TOPIC,
                                slots,
                                Map.of(),
                                "writes kernel costs"),
                        topic(
                                conf,
                                KafkaOptions.COST_SUMMARY_TOPIC,
                                1,
                                Map.of(),
                                "writes cost summaries"),
                        topic(
                                conf,
                                KafkaOptions.GRAPHS_TOPIC,
                                1,
                                COMPACTED,
                                "writes and reads graph descriptors"),
                        topic(
                                conf,
                                KafkaOptions.DEAD_LETTERS_TOPIC,
                                1,
                                Map.of(),
                                "writes dead letters"),
                        topic(
                                conf,
                                KafkaOptions.AUDIT_TOPIC,
                                1,
                                KEPT_FOR_EVER,
                                "writes the tenants' audit chains")));
        return List.copyOf(topics);
    }

    /**
     * The reply topic of each of {@code tenants} whose id can name one, {@code
     * <zerolayer.replies.tenant-prefix><tenant>}: where verified requests naming no reply topic are
     * answered (the job checks it exists as it admits each request).
     */
    public static List<JobTopic> tenantReplies(
            Configuration conf, java.util.Collection<String> tenants) {
        String prefix = conf.get(KafkaOptions.TENANT_REPLIES_PREFIX);
        return tenants.stream()
                .filter(
                        t ->
                                io.zerolayer.operators.tenants.KafkaTenancy.NAMESPACE_ID
                                        .matcher(t)
                                        .matches())
                .sorted()
                .map(
                        t ->
                                new JobTopic(
                                        KafkaOptions.TENANT_REPLIES_PREFIX,
                                        prefix + t,
                                        1,
                                        Map.of(),
                                        "writes tenant " + t + "'s replies"))
                .toList();
    }

    private static JobTopic topic(
            Configuration conf,
            ConfigOption<String> option,
            int partitions,
            Map<String, String> configs,
            String reads) {
        return new JobTopic(option, conf.get(option), partitions, configs, reads);
    }

    /** The topic to create, replicated as the broker's default says. */
    public NewTopic newTopic() {
        return new NewTopic(name, partitions, (short) -1).configs(configs);
    }

    /** Its settings as kafka-topics.sh takes them, {@code --config k=v} each, sorted. */
    public String configArguments() {
        return configs.entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .map(e -> " --config " + e.getKey() + "=" + e.getValue())
                .collect(java.util.stream.Collectors.joining());
    }

    /** The command that creates it with Kafka's own tools. */
    public String createCommand(String bootstrapServers) {
        return createCommand(bootstrapServers, null, (short) -1);
    }

    /**
     * The command that creates it with Kafka's own tools.
     *
     * @param commandConfig the tools' client settings file, or null
     * @param replicationFactor its replicas; -1: the broker's default
     */
    public String createCommand(
            String bootstrapServers, String commandConfig, short replicationFactor) {
        return "kafka-topics.sh --bootstrap-server "
                + bootstrapServers
                + (commandConfig == null ? "" : " --command-config " + commandConfig)
                + " --create --topic "
                + name
                + " --partitions "
                + partitions
                + (replicationFactor > 0 ? " --replication-factor " + replicationFactor : "")
                + configArguments();
    }

    /**
     * The settings the job relies on that {@code actual} (the topic's settings on the cluster)
     * lacks or holds otherwise, as {@code key=value} with the value the job needs.
     */
    public List<String> missingConfigs(Map<String, String> actual) {
        return configs.entrySet().stream()
                .filter(e -> !e.getValue().equals(actual.get(e.getKey())))
                .map(e -> e.getKey() + "=" + e.getValue())
                .sorted()
                .toList();
    }

    /**
     * Fails, naming each missing topic, what the job does with it, the setting that names it and
     * the command that creates it, unless every topic exists.
     *
     * @param existing the topics on the cluster
     * @throws IllegalArgumentException when any is missing
     */
    public static void requireAll(
            List<JobTopic> topics, Collection<String> existing, String bootstrapServers) {
        List<String> missing = new ArrayList<>();
        for (JobTopic t : topics) {
            if (!existing.contains(t.name())) {
                missing.add(
                        "  "
                                + t.name()
                                + " (the job "
                                + t.reads()
                                + "; set by "
                                + t.option().key()
                                + "):\n    "
                                + t.createCommand(bootstrapServers));
            }
        }
        if (!missing.isEmpty()) {
            throw new IllegalArgumentException(
                    missing.size()
                            + " topic(s) the job needs are missing on "
                            + bootstrapServers
                            + "; create them (zerolayer topics create --bootstrap-servers "
                            + bootstrapServers
                            + " makes them all), or name existing ones in config.yaml:\n"
                            + String.join("\n", missing));
        }
    }
}
